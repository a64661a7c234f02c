/**
 * The controller: Pepr's watches and our informers feed keys into our work queue, the queue runs
 * reconcile with bounded concurrency and backoff (reconcile-handler.ts), failures land in status
 * and Events. Only the leader runs reconciles; a standby keeps its watches, cache and known keys
 * warm, and enqueues every known Database the moment it becomes leader. Built by the runtime (the
 * composition root) in the watcher process only.
 */
import { Log } from "pepr";
import { API_VERSION, KIND } from "../api/database";
import { BACKUP_REF, DATABASE_KIND } from "../api/kinds";
import { LABEL_DATABASE, databaseKey, splitDatabaseKey } from "../api/names";
import { warrantsReconcile } from "../cache/changes";
import { Phase, applyEvent } from "../cache/informers";
import { ObjectCache, UpsertOutcome } from "../cache/object-cache";
import { KubeObject } from "../cluster/cluster";
import { Clock, systemClock } from "../lib/clock";
import { errorMessage } from "../lib/errors";
import { WorkQueue } from "../lib/workqueue";
import { OperatorMetrics } from "../metrics/metrics";
import { ReconcileDeps, fenced, forgetAll, forgetDatabase } from "../reconcile/deps";
import { KnownDatabases } from "./known-databases";
import { onReconcileResult, reconcileHandler } from "./reconcile-handler";

type Keyed = { metadata?: { namespace?: string; name?: string; generation?: number } };

export interface Controller {
  /** A watch event for a Database. */
  enqueue(db: Keyed): void;
  /** Something outside the API changed (an instance's SQL state): reconcile a known Database. */
  wake(namespace: string, name: string): void;
  /** The Database was deleted: drop its queue entry, retry state, cache entry and HA memory. */
  forget(db: Keyed): void;
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
  /** A fake clock in tests (also turns off backoff jitter). */
  clock?: Clock;
}

const keyOf = (db: Keyed): string | undefined =>
  db.metadata?.namespace && db.metadata?.name
    ? databaseKey(db.metadata.namespace, db.metadata.name)
    : undefined;

/** Kinds whose objects outlive their Database (owned by a Backup, or a Backup itself). */
const OUTLIVE_DATABASE = new Set([BACKUP_REF.kind, "Job"]);

/** The Database's key of a child (from our label) or of a Backup (its spec), with no API call. */
const ownerKeyOf = (obj: KubeObject): string | undefined =>
  keyOf({
    metadata: {
      namespace: obj.metadata?.namespace,
      name:
        obj.metadata?.labels?.[LABEL_DATABASE] ??
        (obj.kind === BACKUP_REF.kind ? (obj.spec as { database?: string })?.database : undefined),
    },
  });

/**
 * Our own status write comes back as a watch event: not a reason to reconcile again. Only a real
 * object (with a resourceVersion) feeds the cache; a bare key (e.g. from a monitor asking for a
 * reconcile) is never an echo and must not replace the cached Database.
 */
function isEcho(cache: ObjectCache | undefined, db: Keyed): boolean {
  const obj = db as KubeObject;
  if (!cache || !obj.metadata?.resourceVersion) return false;
  const { outcome, previous } = applyEvent(cache, API_VERSION, KIND, obj, "MODIFIED");
  return !warrantsReconcile(outcome as UpsertOutcome, previous, obj);
}

/** Builds the controller around any Cluster (tests pass the in-memory one). */
export function createController(
  deps: ReconcileDeps,
  options: ControllerOptions = {},
): Controller & { queue: WorkQueue } {
  const known = new KnownDatabases();
  const log = Log.child({ component: "controller" });
  const isLeader = options.isLeader ?? (() => true);
  const { metrics, cache } = options;
  const clock = options.clock ?? systemClock;
  // Every write, to the API and over SQL, is fenced here and only here: a reconcile still
  // running when leadership is lost cannot write on, whichever step it is in.
  const guarded = fenced(deps, isLeader);
  const handlerContext = {
    deps: guarded,
    isLeader,
    clock,
    metrics,
    cache,
    onGone: (key: string) => forget(key),
  };
  const queue: WorkQueue = new WorkQueue({
    jitter: options.clock ? undefined : Math.random,
    clock: options.clock,
    concurrency: deps.config.maxConcurrentReconciles,
    backoff: { baseMs: deps.config.backoffBaseMs, capMs: deps.config.backoffCapMs },
    handler: reconcileHandler(handlerContext),
    onResult: onReconcileResult(handlerContext),
    onResyncError: err => log.warn({ error: errorMessage(err) }, "Resync failed"),
  });
  metrics?.watchQueue(() => ({
    depth: queue.len(),
    inFlight: queue.inFlight(),
    delayed: queue.delayed(),
  }));
  // Drift check: every known Database is reconciled again each period. A standby has nothing to do.
  queue.startResync(() => (isLeader() ? known.keys() : []), deps.config.resyncSeconds * 1000);

  function forget(key: string): void {
    known.delete(key);
    queue.forget(key);
    forgetDatabase(deps, key);
    const { namespace, name } = splitDatabaseKey(key);
    cache?.remove(DATABASE_KIND, namespace, name);
    metrics?.forgetDatabase(namespace, name);
  }

  return {
    queue,
    enqueue: db => {
      const key = keyOf(db);
      if (!key) return;
      const newGeneration = known.see(key, db.metadata?.generation);
      if (isEcho(cache, db) || !isLeader()) return;
      // A new generation is a user's change, maybe the fix for the failure we are backing off
      // from: retry now. Anything else (status, children) waits for the backoff.
      if (newGeneration) queue.forget(key);
      queue.add(key);
    },
    forget: db => {
      const key = keyOf(db);
      if (key) forget(key);
    },
    onChildEvent: (phase, obj, outcome, previous) => {
      const key = ownerKeyOf(obj);
      // Children of unknown Databases (not delivered yet, or deleted) wait for their Database;
      // Backups and their Jobs do not: their status must say the Database is missing, or what
      // the Job did after the Database was deleted (reconcile finds no Database and settles them).
      if (!key || !isLeader()) return;
      if (!known.has(key) && !OUTLIVE_DATABASE.has(obj.kind ?? "")) return;
      if (phase === "DELETED" || warrantsReconcile(outcome as UpsertOutcome, previous, obj))
        queue.add(key);
    },
    wake: (namespace, name) => {
      const key = databaseKey(namespace, name);
      // Not through enqueue: that stores the event's object in the cache, and this is no object.
      if (known.has(key) && isLeader()) queue.add(key);
    },
    startedLeading: () => {
      log.info({ databases: known.size }, "Leading: reconciling every known Database");
      for (const key of known.keys()) queue.add(key);
    },
    stoppedLeading: () => {
      log.warn("Not leading any more: reconciles and probes stop");
      forgetAll(deps);
    },
  };
}
