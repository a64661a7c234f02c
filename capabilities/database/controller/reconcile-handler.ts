/**
 * What the work queue runs for a key, and what it does with the result: reconcile on the leader
 * only, observe the duration, export instance health, and record failures in status and Events
 * once the queue scheduled the retry.
 *
 * A 409 Conflict means this pass computed from a view that was already stale (the Database
 * changed under it, or another leader wrote): nothing is wrong, the retry reads the newer object.
 * The first such conflicts are retried quietly; only a repeating one is reported as a failure.
 */
import { Log } from "pepr";
import { Database } from "../api/database";
import { DATABASE_KIND } from "../api/kinds";
import { splitDatabaseKey } from "../api/names";
import { ObjectCache } from "../cache/object-cache";
import { Clock } from "../lib/clock";
import { errorMessage, isConflict, isNamespaceTerminating } from "../lib/errors";
import { ReconcileHandler, ReconcileOutcome } from "../lib/workqueue";
import { OperatorMetrics } from "../metrics/metrics";
import { ReconcileError } from "../lib/errors";
import { recordFailure } from "../reconcile/failure";
import { ReconcileDeps, reconcile } from "../reconcile/reconcile";

/** Conflicts retried before they count as a failure. */
const QUIET_CONFLICTS = 2;

export interface HandlerContext {
  deps: ReconcileDeps;
  isLeader: () => boolean;
  clock: Clock;
  metrics?: OperatorMetrics;
  cache?: ObjectCache;
  /** The Database no longer exists. */
  onGone: (key: string) => void;
}

const log = Log.child({ component: "controller" });

/** Per-instance gauges and the last backup's time, from the status reconcile just wrote (read from the cache). */
function exportInstanceHealth(ctx: HandlerContext, namespace: string, name: string): void {
  const db = ctx.cache?.get(DATABASE_KIND, namespace, name) as Database | undefined;
  if (!ctx.metrics || !db) return;
  const instances = (db.status?.instances ?? []).map(i => ({
    name: i.name,
    role: i.role ?? "unknown",
    ready: i.ready === true,
    ...(typeof i.lagBytes === "number" ? { lagBytes: i.lagBytes } : {}),
  }));
  ctx.metrics.setInstanceHealth(namespace, name, instances);
  ctx.metrics.setLastBackup(namespace, name, db.status?.lastSuccessfulBackup?.time);
}

export function reconcileHandler(ctx: HandlerContext): ReconcileHandler {
  return async key => {
    // Queued before leadership was lost: do nothing (the new leader reconciles it).
    if (!ctx.isLeader()) return;
    const { namespace, name } = splitDatabaseKey(key);
    const started = ctx.clock.now();
    const seconds = () => (ctx.clock.now() - started) / 1000;
    try {
      const report = await reconcile(ctx.deps, namespace, name);
      ctx.metrics?.observeReconcile(report.requeueAfterMs ? "requeue" : "success", seconds());
      if (report.gone) ctx.onGone(key);
      else exportInstanceHealth(ctx, namespace, name);
      if (report.writes > 0) log.info({ key, writes: report.writes }, "Reconciled");
      return report.requeueAfterMs ? { requeueAfterMs: report.requeueAfterMs } : undefined;
    } catch (err) {
      // The namespace is being deleted, and the Database with it: nothing to retry or report.
      if (isNamespaceTerminating(err)) {
        ctx.metrics?.observeReconcile("success", seconds());
        log.info({ key }, "Namespace being deleted: reconcile stopped");
        return undefined;
      }
      ctx.metrics?.observeReconcile("error", seconds());
      throw err;
    }
  };
}

export function onReconcileResult(ctx: HandlerContext): (outcome: ReconcileOutcome) => void {
  return outcome => {
    if (outcome.result !== "error") return;
    const { error, attempt } = outcome;
    const reason = error instanceof ReconcileError ? error.reason : "ReconcileFailed";
    ctx.metrics?.reconcileFailed(reason, outcome.retryInMs !== undefined);
    const fields = { key: outcome.key, attempt, retryInMs: outcome.retryInMs };
    if (isConflict(error) && attempt <= QUIET_CONFLICTS) {
      log.info({ ...fields, error: errorMessage(error) }, "Stale view of the Database: retrying");
      return;
    }
    log.warn({ ...fields, error: errorMessage(error) }, "Reconcile failed");
    if (!ctx.isLeader()) return; // the failure may be exactly that: the new leader takes it from here
    recordFailure(ctx.deps, splitDatabaseKey(outcome.key), error, attempt, outcome.retryInMs).catch(
      err =>
        log.warn(
          { key: outcome.key, error: errorMessage(err) },
          "Could not record the failure in status",
        ),
    );
  };
}
