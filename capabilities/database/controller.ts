/**
 * The controller: Pepr's watches and our informers feed keys into our work queue, the queue runs
 * reconcile with bounded concurrency and backoff, failures land in status and Events. Only the
 * leader runs reconciles; a standby keeps its watches, cache and known keys warm, and enqueues
 * every known Database the moment it becomes leader. Built lazily, because `pepr build` imports
 * the module once to collect bindings and must not touch a cluster.
 */
import { Log } from "pepr";
import { Database, GROUP, KIND, VERSION } from "./api/database";
import { LABEL_DATABASE } from "./api/names";
import { validateDatabase } from "./admission/validate";
import { warrantsReconcile } from "./cache/changes";
import { DATABASE_KIND } from "./cache/cached-cluster";
import { Phase, applyEvent } from "./cache/informers";
import { ObjectCache, UpsertOutcome } from "./cache/object-cache";
import { guardWrites } from "./leader/guard";
import { Clock, systemClock } from "./lib/clock";
import { readConfig } from "./lib/config";
import { errorMessage } from "./lib/errors";
import { WorkQueue } from "./lib/workqueue";
import { realHaDeps } from "./ha/ha-deps";
import { OperatorMetrics } from "./metrics/metrics";
import { KubeObject } from "./reconcile/cluster";
import { ReconcileError } from "./reconcile/errors";
import { apiCluster } from "./reconcile/api-cluster";
import { ReconcileDeps, recordFailure, reconcile } from "./reconcile/reconcile";

type Keyed = { metadata?: { namespace?: string; name?: string; generation?: number } };

export interface Controller {
  /** A watch event for a Database (or, via its label, one of its children). */
  enqueue(db: Keyed): void;
  /** Something outside the API changed (an instance's SQL state): reconcile a known Database. */
  wake(namespace: string, name: string): void;
  forget(db: { metadata?: { namespace?: string; name?: string } }): void;
  onDeleted(db: Database): Promise<void>;
  /** Pepr's Finalize callback: cleans up on the leader; a standby leaves the finalizer alone. */
  finalize(db: Database): Promise<boolean>;
  /** An informer event for a child; enqueues its Database when it matters (see cache/changes). */
  onChildEvent(
    phase: Phase,
    obj: KubeObject,
    outcome: UpsertOutcome | "removed",
    previous: KubeObject | undefined,
  ): void;
  /** Leadership acquired: reconcile every known Database (the standby kept the keys). */
  startedLeading(): void;
  /** Leadership lost: run nothing more (queued keys become no-ops). */
  stoppedLeading(): void;
}

export interface ControllerOptions {
  /** Leadership (default: always the leader, e.g. a single replica or unit tests). */
  isLeader?: () => boolean;
  metrics?: OperatorMetrics;
  /** The watch-fed cache; Database events are compared against it to drop our own echoes. */
  cache?: ObjectCache;
}

const DATABASE_API_VERSION = `${GROUP}/${VERSION}`;

const keyOf = (db: { metadata?: { namespace?: string; name?: string } }): string | undefined =>
  db.metadata?.namespace && db.metadata?.name
    ? `${db.metadata.namespace}/${db.metadata.name}`
    : undefined;

const splitKey = (key: string): { namespace: string; name: string } => {
  const [namespace, name] = key.split("/");
  return { namespace, name };
};

/** The owning Database's key of a child, from our label (no API call). */
const ownerKeyOf = (obj: KubeObject): string | undefined =>
  keyOf({
    metadata: { namespace: obj.metadata?.namespace, name: obj.metadata?.labels?.[LABEL_DATABASE] },
  });

/** Builds the controller around any Cluster (tests pass a different one). */
export function createController(
  deps: Omit<ReconcileDeps, "onDeleted" | "isLeader">,
  clock?: Clock,
  options: ControllerOptions = {},
): Controller & { queue: WorkQueue } {
  // Known Databases and the generation last seen: the resync list, and the way to tell a spec
  // change (which should cut through a retry backoff) from our own status writes (which must not).
  const known = new Map<string, number | undefined>();
  const log = Log.child({ component: "controller" });
  const isLeader = options.isLeader ?? (() => true);
  const { metrics, cache } = options;
  const time = clock ?? systemClock;

  const onDeleted = async (db: Database): Promise<void> => {
    const key = keyOf(db);
    if (key) {
      known.delete(key);
      queue.forget(key);
      deps.ha?.monitor.untrack?.(key);
    }
    await fullDeps.cluster.recordEvent(db, {
      type: "Normal",
      reason: "Deleting",
      message: "Database deleted: its children are removed by garbage collection",
    });
  };

  // Writes are fenced: a reconcile still running when leadership is lost cannot write on.
  const fullDeps: ReconcileDeps = {
    ...deps,
    cluster: options.isLeader ? guardWrites(deps.cluster, isLeader) : deps.cluster,
    onDeleted,
    isLeader,
  };

  /** Per-instance gauges from the status reconcile just wrote (read from the cache). */
  const exportInstanceHealth = (namespace: string, name: string): void => {
    const db = cache?.get(DATABASE_KIND, namespace, name) as Database | undefined;
    if (!metrics || !db) return;
    const instances = (db.status?.instances ?? []).map(i => ({
      name: i.name,
      role: i.role ?? "unknown",
      ready: i.ready === true,
      ...(typeof i.lagBytes === "number" ? { lagBytes: i.lagBytes } : {}),
    }));
    metrics.setInstanceHealth(namespace, name, instances);
  };

  const queue: WorkQueue = new WorkQueue({
    jitter: clock ? undefined : Math.random,
    clock,
    concurrency: deps.config.maxConcurrentReconciles,
    backoff: { baseMs: deps.config.backoffBaseMs, capMs: deps.config.backoffCapMs },
    handler: async key => {
      // Queued before leadership was lost: do nothing (the new leader reconciles it).
      if (!isLeader()) return;
      const { namespace, name } = splitKey(key);
      const started = time.now();
      const seconds = () => (time.now() - started) / 1000;
      try {
        const report = await reconcile(fullDeps, namespace, name);
        metrics?.observeReconcile(report.requeueAfterMs ? "requeue" : "success", seconds());
        if (report.gone) {
          known.delete(key);
          metrics?.forgetDatabase(namespace, name);
        } else exportInstanceHealth(namespace, name);
        if (report.writes > 0) log.info({ key, writes: report.writes }, "Reconciled");
        return report.requeueAfterMs ? { requeueAfterMs: report.requeueAfterMs } : undefined;
      } catch (err) {
        metrics?.observeReconcile("error", seconds());
        throw err;
      }
    },
    onResult: outcome => {
      if (outcome.result !== "error") return;
      const reason =
        outcome.error instanceof ReconcileError ? outcome.error.reason : "ReconcileFailed";
      metrics?.reconcileFailed(reason, outcome.retryInMs !== undefined);
      log.warn(
        {
          key: outcome.key,
          attempt: outcome.attempt,
          retryInMs: outcome.retryInMs,
          error: errorMessage(outcome.error),
        },
        "Reconcile failed",
      );
      if (!isLeader()) return; // the failure may be exactly that: the new leader takes it from here
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
  metrics?.watchQueue(() => ({
    depth: queue.len(),
    inFlight: queue.inFlight(),
    delayed: queue.delayed(),
  }));
  // Drift check: every known Database is reconciled again each period, from the keys the watch
  // delivered (no LIST call needed). A standby has nothing to check.
  queue.startResync(() => (isLeader() ? [...known.keys()] : []), deps.config.resyncSeconds * 1000);

  /**
   * Our own status write comes back as a watch event: not a reason to reconcile again. Only a
   * real object (with a resourceVersion) feeds the cache; a bare key (e.g. from a monitor asking
   * for a reconcile) is never an echo and must not replace the cached Database.
   */
  const isEcho = (db: Keyed & { metadata?: { resourceVersion?: string } }): boolean => {
    if (!cache || !db.metadata?.resourceVersion) return false;
    const { outcome, previous } = applyEvent(
      cache,
      DATABASE_API_VERSION,
      KIND,
      db as KubeObject,
      "MODIFIED",
    );
    return !warrantsReconcile(outcome as UpsertOutcome, previous, db as KubeObject);
  };

  const enqueue = (db: Keyed): void => {
    const key = keyOf(db);
    if (!key) return;
    const generation = db.metadata?.generation;
    const previous = known.get(key);
    if (generation !== undefined) known.set(key, generation);
    else if (!known.has(key)) known.set(key, undefined);
    if (isEcho(db) || !isLeader()) return;
    // A new generation is a user's change, maybe the fix for the failure we are backing off
    // from: retry now. Anything else (status, children) waits for the backoff.
    if (generation !== undefined && previous !== undefined && generation !== previous)
      queue.forget(key);
    queue.add(key);
  };

  return {
    queue,
    onDeleted,
    enqueue,
    forget: db => {
      const key = keyOf(db);
      if (!key) return;
      known.delete(key);
      queue.forget(key);
      deps.ha?.monitor.untrack?.(key);
      const { namespace, name } = splitKey(key);
      cache?.remove(DATABASE_KIND, namespace, name);
      metrics?.forgetDatabase(namespace, name);
    },
    finalize: async db => {
      if (!isLeader()) return false;
      await onDeleted(db);
      return true;
    },
    onChildEvent: (phase, obj, outcome, previous) => {
      const key = ownerKeyOf(obj);
      // Children of unknown Databases (not delivered yet, or deleted) wait for their Database.
      if (!key || !known.has(key) || !isLeader()) return;
      if (phase === "DELETED" || warrantsReconcile(outcome as UpsertOutcome, previous, obj))
        queue.add(key);
    },
    wake: (namespace, name) => {
      const key = `${namespace}/${name}`;
      // Not through enqueue: that stores the event's object in the cache, and this is no object.
      if (known.has(key) && isLeader()) queue.add(key);
    },
    startedLeading: () => {
      log.info({ databases: known.size }, "Leading: reconciling every known Database");
      for (const key of known.keys()) queue.add(key);
    },
    stoppedLeading: () => log.warn("Not leading any more: reconciles stop"),
  };
}

let singleton: Controller | undefined;

/** Installs the process-wide controller (the watcher runtime does, with cache and election). */
export function setController(ctl: Controller): void {
  singleton = ctl;
}

/**
 * The process-wide controller: the runtime's, or a plain one on the real API (with the instance
 * monitor) if the runtime did not install one.
 */
export function controller(): Controller {
  if (singleton) return singleton;
  const config = readConfig();
  singleton = createController({
    cluster: apiCluster(),
    config,
    now: () => new Date(),
    validate: db => validateDatabase(db),
    ha: realHaDeps(config, (namespace, name) => singleton?.wake(namespace, name)),
  });
  return singleton;
}
