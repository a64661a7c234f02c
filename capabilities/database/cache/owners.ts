/**
 * The Databases and Backups the watcher knows, and so which labelled objects the cache may hold:
 * those of a known Database (our label names it) or of a known Backup (its Job and the Job's pod
 * outlive the Database). Anyone can copy our labels onto objects in their own namespace; those
 * are dropped as they arrive, so a tenant cannot grow the operator's memory with them.
 */
import { LABEL_DATABASE, LABEL_MANAGED_BY, MANAGER, databaseKey } from "../api/names";
import { KubeObject } from "../cluster/cluster";
import { LABEL_BACKUP, jobNameFor } from "../specs/backup-job";

/** The owner whose arrival may bring children the informers dropped before: what to list again. */
export interface Revisit {
  namespace: string;
  /** Label selector of its children. */
  selector: string;
  /** The kinds that carry that label (undefined: every child kind). */
  kinds?: readonly string[];
}

/** The kinds a Backup's label is on: its Job and the Job's pod. */
export const BACKUP_CHILD_KINDS = ["Job", "Pod"] as const;

/**
 * How many owners whose children were dropped are remembered. Beyond, every arriving owner is
 * revisited: a tenant with thousands of impostors costs LISTs, never a missed child.
 */
export const DROPPED_LIMIT = 10_000;

export class Owners {
  private readonly databases = new Set<string>();
  private readonly backups = new Set<string>();
  /** Owners ("d:" Database, "b:" Backup's Job) some of whose children were dropped, unknown then. */
  private readonly dropped = new Set<string>();
  private droppedOverflow = false;

  /**
   * Records a Database; what to revisit if it is new and children carrying its name were dropped
   * before (a new Database's children are made after it is seen: nothing to list again).
   */
  addDatabase(namespace: string, name: string): Revisit | undefined {
    const key = databaseKey(namespace, name);
    if (this.databases.has(key)) return undefined;
    this.databases.add(key);
    if (!this.missedChildrenOf(`d:${key}`)) return undefined;
    return { namespace, selector: `${LABEL_DATABASE}=${name}` };
  }

  removeDatabase(namespace: string, name: string): void {
    this.databases.delete(databaseKey(namespace, name));
  }

  hasDatabase(namespace: string, name: string): boolean {
    return this.databases.has(databaseKey(namespace, name));
  }

  /**
   * Records a Backup; what to revisit if it is new. Held by its Job's name, the value of the
   * label its Job and pod carry (a long Backup name is shortened there).
   */
  addBackup(namespace: string, name: string): Revisit | undefined {
    const job = jobNameFor(name);
    const key = databaseKey(namespace, job);
    if (this.backups.has(key)) return undefined;
    this.backups.add(key);
    if (!this.missedChildrenOf(`b:${key}`)) return undefined;
    return { namespace, selector: `${LABEL_BACKUP}=${job}`, kinds: BACKUP_CHILD_KINDS };
  }

  removeBackup(namespace: string, name: string): void {
    this.backups.delete(databaseKey(namespace, jobNameFor(name)));
  }

  /** The children's watches' filter: `owns`, remembering whose children it dropped. */
  keep = (obj: KubeObject): boolean => {
    if (this.owns(obj)) return true;
    const labels = obj.metadata?.labels ?? {};
    if (labels[LABEL_MANAGED_BY] !== MANAGER) return false;
    const namespace = obj.metadata?.namespace ?? "";
    const database = labels[LABEL_DATABASE];
    const backup = labels[LABEL_BACKUP];
    if (database !== undefined) this.rememberDropped(`d:${databaseKey(namespace, database)}`);
    if (backup !== undefined) this.rememberDropped(`b:${databaseKey(namespace, backup)}`);
    return false;
  };

  private rememberDropped(key: string): void {
    if (this.dropped.has(key) || this.droppedOverflow) return;
    if (this.dropped.size >= DROPPED_LIMIT) this.droppedOverflow = true;
    else this.dropped.add(key);
  }

  /** Whether children of this owner may have been dropped (and so must be listed again). */
  private missedChildrenOf(key: string): boolean {
    return this.dropped.delete(key) || this.droppedOverflow;
  }

  /** Whether the cache may hold `obj`: ours, of a known Database or Backup, in its namespace. */
  owns = (obj: KubeObject): boolean => {
    const labels = obj.metadata?.labels ?? {};
    const namespace = obj.metadata?.namespace ?? "";
    if (labels[LABEL_MANAGED_BY] !== MANAGER) return false;
    const database = labels[LABEL_DATABASE];
    const backup = labels[LABEL_BACKUP];
    return (
      (database !== undefined && this.databases.has(databaseKey(namespace, database))) ||
      (backup !== undefined && this.backups.has(databaseKey(namespace, backup)))
    );
  };
}
