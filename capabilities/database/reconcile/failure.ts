/**
 * A failed reconcile in status (Reconciled=False, retry info) and, when the reason or message is
 * new, as one Warning Event: a failure retried with backoff is not an Event per attempt.
 */
import { Database } from "../api/database";
import { findCondition } from "../api/conditions";
import { Cluster } from "../cluster/cluster";
import { DatabaseWriter } from "../cluster/database-writer";
import { ReconcileError } from "../lib/errors";
import { Failure, failedStatus } from "./status";

interface FailureDeps {
  cluster: Cluster;
  now: () => Date;
}

/** Called by the controller once the queue scheduled the retry (`retryInMs`, if any). */
export async function recordFailure(
  deps: FailureDeps,
  key: { namespace: string; name: string },
  error: unknown,
  attempts: number,
  retryInMs: number | undefined,
): Promise<void> {
  const db = await deps.cluster.getDatabase(key.namespace, key.name);
  if (!db || db.metadata?.deletionTimestamp) return;
  const failure: Failure = {
    reason: error instanceof ReconcileError ? error.reason : "ReconcileFailed",
    message: error instanceof Error ? error.message : String(error),
    attempts,
    ...(retryInMs !== undefined
      ? { nextRetryTime: new Date(deps.now().getTime() + retryInMs) }
      : {}),
  };
  await recordFailureOn(deps, db, new DatabaseWriter(deps.cluster, db), failure);
}

export async function recordFailureOn(
  deps: FailureDeps,
  db: Database,
  writer: DatabaseWriter,
  failure: Failure,
): Promise<void> {
  const previous = findCondition(db.status?.conditions, "Reconciled");
  await writer.write(failedStatus(db.status, failure, db.metadata?.generation ?? 0, deps.now()));
  if (previous?.reason !== failure.reason || previous?.message !== failure.message) {
    await deps.cluster.recordEvent(db, {
      type: "Warning",
      reason: failure.reason,
      message: failure.message,
    });
  }
}
