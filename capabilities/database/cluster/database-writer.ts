/**
 * The one writer of a Database in a reconcile pass: its status, and the removal of a request
 * annotation once handled. Steps compute statuses or changes as values and hand them here; the
 * writer sends only what differs, carrying the resourceVersion it last saw, so a write based on a
 * stale view (a deposed leader, a concurrent edit) fails with a 409 Conflict instead of
 * overwriting something newer. It never mutates the Database it was given: cached objects are
 * shared and must stay as delivered.
 */
import { jsonEqual } from "../lib/json-equal";
import { Database } from "../api/database";
import { DatabaseStatus } from "../api/database-schema";
import { Cluster, DatabaseStatusPatch, DatabaseVersion } from "./cluster";

/** Fields to set; a field given as `undefined` is removed. */
export type StatusChange = Partial<DatabaseStatus>;

/**
 * The merge patch that turns `prev` into `next`, or undefined when they are equal. Top-level
 * fields that disappeared are sent as null (a merge patch removes them).
 */
export function statusPatch(
  prev: DatabaseStatus | undefined,
  next: DatabaseStatus,
): DatabaseStatusPatch | undefined {
  if (jsonEqual(prev ?? {}, next)) return undefined;
  const patch: DatabaseStatusPatch = { ...next };
  for (const key of Object.keys(prev ?? {}) as (keyof DatabaseStatus)[]) {
    if (!(key in next)) patch[key] = null;
  }
  return patch;
}

/** `status` with `change` applied: undefined values remove their field. */
export function applyChange(
  status: DatabaseStatus | undefined,
  change: StatusChange,
): DatabaseStatus {
  const next: Record<string, unknown> = { ...status, ...change };
  for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
  return next as DatabaseStatus;
}

export class DatabaseWriter {
  private current: DatabaseStatus | undefined;
  private resourceVersion: string | undefined;
  private readonly target: { namespace: string; name: string };
  private annotations: Record<string, string>;

  constructor(
    private readonly cluster: Cluster,
    db: Database,
  ) {
    this.current = db.status;
    this.resourceVersion = db.metadata?.resourceVersion;
    this.target = { namespace: db.metadata?.namespace ?? "", name: db.metadata?.name ?? "" };
    this.annotations = db.metadata?.annotations ?? {};
  }

  private get version(): DatabaseVersion {
    return { ...this.target, resourceVersion: this.resourceVersion };
  }

  /** The status as stored after this pass's writes so far. */
  get status(): DatabaseStatus | undefined {
    return this.current;
  }

  /** Writes `next` when it differs from the stored status; true when it wrote. */
  async write(next: DatabaseStatus): Promise<boolean> {
    const patch = statusPatch(this.current, next);
    if (!patch) return false;
    const stored = await this.cluster.patchStatus(this.version, patch);
    this.current = next;
    this.resourceVersion = stored.metadata?.resourceVersion;
    return true;
  }

  /** Applies `change` on top of the stored status and writes the result when it differs. */
  update(change: StatusChange): Promise<boolean> {
    return this.write(applyChange(this.current, change));
  }

  /** Removes a handled request annotation (a switchover), if the Database still has it. */
  async removeAnnotation(key: string): Promise<void> {
    if (this.annotations[key] === undefined) return;
    const stored = await this.cluster.removeAnnotation(this.version, key);
    const { [key]: _removed, ...rest } = this.annotations;
    this.annotations = rest;
    this.resourceVersion = stored.metadata?.resourceVersion;
  }
}
