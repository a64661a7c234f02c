/**
 * The controller: Pepr's watches feed keys into our work queue, the queue runs reconcile with
 * bounded concurrency and backoff, failures land in status and Events. Built lazily, because
 * `pepr build` imports the module once to collect bindings and must not touch a cluster.
 */
import { Log } from "pepr";
import { Database } from "./api/database";
import { validateDatabase } from "./admission/validate";
import { Clock } from "./lib/clock";
import { readConfig } from "./lib/config";
import { errorMessage } from "./lib/errors";
import { WorkQueue } from "./lib/workqueue";
import { newHaMemory } from "./ha/ha-step";
import * as instanceSql from "./ha/instance-sql";
import { InstanceMonitor } from "./ha/monitor";
import { POSTGRES_PORT } from "./specs/layout";
import { kfcCluster } from "./reconcile/kfc-cluster";
import { ReconcileDeps, recordFailure, reconcile } from "./reconcile/reconcile";

type Keyed = { metadata?: { namespace?: string; name?: string; generation?: number } };

export interface Controller {
  /** A watch event for a Database (or, via its label, one of its children). */
  enqueue(db: Keyed): void;
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
  clock?: Clock,
): Controller & { queue: WorkQueue } {
  // Known Databases and the generation last seen: the resync list, and the way to tell a spec
  // change (which should cut through a retry backoff) from our own status writes (which must not).
  const known = new Map<string, number | undefined>();
  const log = Log.child({ component: "controller" });

  const onDeleted = async (db: Database): Promise<void> => {
    const key = keyOf(db);
    if (key) {
      known.delete(key);
      queue.forget(key);
      deps.ha?.monitor.untrack?.(key);
    }
    await deps.cluster.recordEvent(db, {
      type: "Normal",
      reason: "Deleting",
      message: "Database deleted: its children are removed by garbage collection",
    });
  };

  const fullDeps: ReconcileDeps = { ...deps, onDeleted };

  const queue: WorkQueue = new WorkQueue({
    jitter: clock ? undefined : Math.random,
    clock,
    concurrency: deps.config.maxConcurrentReconciles,
    backoff: { baseMs: deps.config.backoffBaseMs, capMs: deps.config.backoffCapMs },
    handler: async key => {
      const { namespace, name } = splitKey(key);
      const report = await reconcile(fullDeps, namespace, name);
      if (report.gone) known.delete(key);
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
  queue.startResync(() => [...known.keys()], deps.config.resyncSeconds * 1000);

  return {
    queue,
    onDeleted,
    enqueue: db => {
      const key = keyOf(db);
      if (!key) return;
      const generation = db.metadata?.generation;
      const previous = known.get(key);
      if (generation !== undefined) known.set(key, generation);
      else if (!known.has(key)) known.set(key, undefined);
      // A new generation is a user's change, maybe the fix for the failure we are backing off
      // from: retry now. Anything else (status, children) waits for the backoff.
      if (generation !== undefined && previous !== undefined && generation !== previous)
        queue.forget(key);
      queue.add(key);
    },
    forget: db => {
      const key = keyOf(db);
      if (!key) return;
      known.delete(key);
      queue.forget(key);
      deps.ha?.monitor.untrack?.(key);
    },
  };
}

let singleton: Controller | undefined;

/**
 * The process-wide controller on the real API (created on first use, in watcher/dev mode), with
 * the instance monitor probing every instance over SQL and waking reconcile on what matters.
 */
export function controller(): Controller {
  if (singleton) return singleton;
  const config = readConfig();
  const monitor = new InstanceMonitor({
    sql: instanceSql,
    intervalMs: config.probeIntervalMs,
    timeoutMs: config.probeTimeoutMs,
    failureThreshold: config.probeFailureThreshold,
    port: POSTGRES_PORT,
    onChange: key => {
      const [namespace, name] = key.split("/");
      singleton?.enqueue({ metadata: { namespace, name } });
    },
  });
  singleton = createController({
    cluster: kfcCluster,
    config,
    now: () => new Date(),
    validate: db => validateDatabase(db),
    ha: {
      monitor,
      sql: instanceSql,
      failureThreshold: config.probeFailureThreshold,
      memory: newHaMemory(),
    },
  });
  return singleton;
}
