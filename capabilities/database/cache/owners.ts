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

export class Owners {
  private readonly databases = new Set<string>();
  private readonly backups = new Set<string>();

  /** Records a Database; what to revisit if it is new. */
  addDatabase(namespace: string, name: string): Revisit | undefined {
    const key = databaseKey(namespace, name);
    if (this.databases.has(key)) return undefined;
    this.databases.add(key);
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
    return { namespace, selector: `${LABEL_BACKUP}=${job}`, kinds: BACKUP_CHILD_KINDS };
  }

  removeBackup(namespace: string, name: string): void {
    this.backups.delete(databaseKey(namespace, jobNameFor(name)));
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
