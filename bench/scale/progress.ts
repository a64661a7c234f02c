/**
 * How many of a run's Databases are reconciled and how many are Ready, from a list of them.
 *
 * Ready here means every instance's pod is ready (status.readyInstances = spec.instances), not
 * phase Ready: no PostgreSQL runs in kwok's pods, so replicas never answer the SQL probes, and
 * since the phase also requires replicas that serve reads it stays Degraded forever; the run
 * then waited out its whole --ready-timeout for a figure it could not get. What this figure
 * measures is kwok and the StatefulSet controller starting pods in order, as it always did.
 */
export interface DatabaseView {
  metadata: { generation?: number };
  spec?: { instances?: number };
  status?: {
    observedGeneration?: number;
    phase?: string;
    readyInstances?: number;
    conditions?: { type: string; status: string }[];
  };
}

const reconciled = (db: DatabaseView): boolean =>
  db.status?.observedGeneration === db.metadata.generation &&
  (db.status?.conditions ?? []).some(c => c.type === "Reconciled" && c.status === "True");

const ready = (db: DatabaseView): boolean =>
  db.status?.phase === "Ready" ||
  (db.status?.readyInstances !== undefined && db.status.readyInstances === db.spec?.instances);

export function countProgress(items: DatabaseView[]): { reconciled: number; ready: number } {
  return {
    reconciled: items.filter(reconciled).length,
    ready: items.filter(ready).length,
  };
}
