/**
 * The controller: Pepr's watches feed keys into our work queue, the queue runs reconcile with
 * bounded concurrency and backoff, failures land in status and Events. Built lazily, because
 * `pepr build` imports the module once to collect bindings and must not touch a cluster.
 */
import { Log } from "pepr";
import { Database } from "./api/database";
import { validateDatabase } from "./admission/validate";
import { readConfig } from "./lib/config";
import { errorMessage } from "./lib/errors";
import { WorkQueue } from "./lib/workqueue";
import { kfcCluster } from "./reconcile/kfc-cluster";
import { ReconcileDeps, recordFailure, reconcile } from "./reconcile/reconcile";

export interface Controller {
  enqueue(db: { metadata?: { namespace?: string; name?: string } }): void;
  forget(db: { metadata?: { namespace?: string; name?: string } }): void;
  onDeleted(db: Database): Promise<void>;
}

const keyOf = (db: { metadata?: { namespace?: string; name?: string } }): string | undefined =>
  db.metadata?.namespace && db.metadata?.name
    ? `${db.metadata.namespace}/${db.metadata.name}`
    : undefined;

const splitKey = (key: string): { namespace: string; name: string } => {
  const [namespace, name] = key.split("/");
  return { namespace, name };
};

/** Builds the controller around any Cluster (tests pass a different one). */
export function createController(
  deps: Omit<ReconcileDeps, "onDeleted">,
): Controller & { queue: WorkQueue } {
  const known = new Set<string>();
  const log = Log.child({ component: "controller" });

  const onDeleted = async (db: Database): Promise<void> => {
    const key = keyOf(db);
    if (key) {
      known.delete(key);
      queue.forget(key);
    }
    await deps.cluster.recordEvent(db, {
      type: "Normal",
      reason: "Deleting",
      message: "Database deleted: its children are removed by garbage collection",
    });
  };

  const fullDeps: ReconcileDeps = { ...deps, onDeleted };

  const queue: WorkQueue = new WorkQueue({
    concurrency: deps.config.maxConcurrentReconciles,
    backoff: { baseMs: deps.config.backoffBaseMs, capMs: deps.config.backoffCapMs },
    handler: async key => {
      const { namespace, name } = splitKey(key);
      const report = await reconcile(fullDeps, namespace, name);
      if (report.writes > 0) log.info({ key, writes: report.writes }, "Reconciled");
      return report.requeueAfterMs ? { requeueAfterMs: report.requeueAfterMs } : undefined;
    },
    onResult: outcome => {
      if (outcome.result !== "error") return;
      log.warn(
        {
          key: outcome.key,
          attempt: outcome.attempt,
          retryInMs: outcome.retryInMs,
          error: errorMessage(outcome.error),
        },
        "Reconcile failed",
      );
      recordFailure(
        fullDeps,
        splitKey(outcome.key),
        outcome.error,
        outcome.attempt,
        outcome.retryInMs,
      ).catch(err =>
        log.warn(
          { key: outcome.key, error: errorMessage(err) },
          "Could not record the failure in status",
        ),
      );
    },
    onResyncError: err => log.warn({ error: errorMessage(err) }, "Resync failed"),
  });
  // Drift check: every known Database is reconciled again each period, from the keys the watch
  // delivered (no LIST call needed).
  queue.startResync(() => [...known], deps.config.resyncSeconds * 1000);

  return {
    queue,
    onDeleted,
    enqueue: db => {
      const key = keyOf(db);
      if (!key) return;
      known.add(key);
      queue.add(key);
    },
    forget: db => {
      const key = keyOf(db);
      if (!key) return;
      known.delete(key);
      queue.forget(key);
    },
  };
}

let singleton: Controller | undefined;

/** The process-wide controller on the real API (created on first use, in watcher/dev mode). */
export function controller(): Controller {
  singleton ??= createController({
    cluster: kfcCluster,
    config: readConfig(),
    now: () => new Date(),
    validate: db => validateDatabase(db),
  });
  return singleton;
}
