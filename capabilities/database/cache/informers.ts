/**
 * One list+watch per child kind, limited server-side to objects pgkeeper manages (label
 * selector), feeding the read cache — an informer. They are not Pepr bindings: a Pepr binding
 * watches one event type, so following ADDED, MODIFIED and DELETED of a kind would take two
 * bindings, i.e. two list+watch streams and two copies of every object in memory. KFC's Watcher
 * (what Pepr uses underneath) delivers all three from one stream.
 */
import { K8s, Log, kind } from "pepr";
import { GenericClass, WatchEvent } from "kubernetes-fluent-client";
import { Backup } from "../api/backup";
import { Database } from "../api/database";
import { BACKUP_REF, CHILD_KINDS, ChildKind, kindKeyOf } from "../api/kinds";
import { LABEL_MANAGED_BY, MANAGER } from "../api/names";
import { KubeObject } from "../cluster/cluster";
import { errorMessage } from "../lib/errors";
import { ObjectCache } from "./object-cache";

export type Phase = "ADDED" | "MODIFIED" | "DELETED";

/** KFC's model of each child kind (a Record: a kind added to api/kinds must be given one). */
const MODELS: Record<ChildKind, GenericClass> = {
  Secret: kind.Secret,
  ConfigMap: kind.ConfigMap,
  Service: kind.Service,
  Pod: kind.Pod,
  PersistentVolumeClaim: kind.PersistentVolumeClaim,
  ServiceAccount: kind.ServiceAccount,
  StatefulSet: kind.StatefulSet,
  PodDisruptionBudget: kind.PodDisruptionBudget,
  NetworkPolicy: kind.NetworkPolicy,
  CronJob: kind.CronJob,
  Job: kind.Job,
};

/** The informers' selector: what the cache may hold. */
export const isManaged = (obj: KubeObject): boolean =>
  obj.metadata?.labels?.[LABEL_MANAGED_BY] === MANAGER;

/**
 * Pepr's watch settings (same environment variables), so all watches behave alike. A namespaced
 * install's watches never give up (`resyncFailureMax` unset: KFC retries for ever): a served
 * namespace can be deleted, which its Role goes with, and a watcher exiting on that would
 * crash-loop until the list of namespaces changed; the cache is read around meanwhile.
 */
export const watchSettings = (namespaced: boolean): WatchSettings => {
  const settings = watchCfg();
  return namespaced ? { ...settings, resyncFailureMax: undefined } : settings;
};

interface WatchSettings {
  resyncFailureMax?: number;
  resyncDelaySec: number;
  lastSeenLimitSeconds: number;
  relistIntervalSec: number;
}

const watchCfg = (): WatchSettings & { resyncFailureMax: number } => {
  const int = (name: string, fallback: number) => {
    const n = Number.parseInt(process.env[name] ?? "", 10);
    return Number.isFinite(n) && n > 0 ? n : fallback;
  };
  return {
    resyncFailureMax: int("PEPR_RESYNC_FAILURE_MAX", 5),
    resyncDelaySec: int("PEPR_RESYNC_DELAY_SECONDS", 5),
    lastSeenLimitSeconds: int("PEPR_LAST_SEEN_LIMIT_SECONDS", 300),
    relistIntervalSec: int("PEPR_RELIST_INTERVAL_SECONDS", 600),
  };
};

/**
 * Applies one watch event to the cache and tells `onEvent` what it was, with the previous object,
 * so the caller can decide whether it warrants a reconcile.
 */
export type InformerEvent = (
  phase: Phase,
  obj: KubeObject,
  outcome: ReturnType<ObjectCache["upsert"]> | "removed",
  previous: KubeObject | undefined,
) => void;

export function applyEvent(
  cache: ObjectCache,
  apiVersion: string,
  kindName: string,
  obj: KubeObject,
  phase: Phase,
): { outcome: ReturnType<ObjectCache["upsert"]> | "removed"; previous?: KubeObject } {
  // Items of a LIST carry no apiVersion/kind: stamp them (the same object KFC caches, harmless).
  obj.apiVersion ??= apiVersion;
  obj.kind ??= kindName;
  const key = kindKeyOf({ apiVersion, kind: kindName });
  const meta = obj.metadata ?? {};
  const previous = cache.get(key, meta.namespace ?? "", meta.name ?? "");
  if (phase === "DELETED") {
    cache.remove(key, meta.namespace ?? "", meta.name ?? "", meta.uid);
    return { outcome: "removed", previous };
  }
  return { outcome: cache.upsert(key, obj), previous };
}

/** Where the informers look: the whole cluster, or each namespace a namespaced install serves. */
export interface InformerScope {
  /** Empty: the whole cluster (one watch per kind). Else one watch per kind and namespace. */
  namespaces: readonly string[];
  /**
   * A namespaced install's Databases: Pepr's own Database bindings watch the whole cluster,
   * which its Roles do not allow, so the runtime watches them here and is told each event.
   */
  onDatabase?: (phase: Phase, db: KubeObject) => void;
}

interface Source {
  apiVersion: string;
  kindName: string;
  /** Anything KFC can watch (filtered or not). */
  model: { Watch: ReturnType<typeof K8s>["Watch"] };
  namespace?: string;
}

/** One source per kind, or per kind and namespace (`[undefined]`: cluster-wide). */
function sourcesIn(namespaces: readonly string[]): Source[] {
  const scopes = namespaces.length === 0 ? [undefined] : namespaces;
  return scopes.flatMap(namespace => {
    const scoped = (model: GenericClass) =>
      namespace === undefined ? K8s(model) : K8s(model).InNamespace(namespace);
    return [
      // Children carry our label; Backups are the user's objects (or made from a schedule) and
      // carry none, so they are watched whole.
      ...CHILD_KINDS.map(({ apiVersion, kind: kindName }) => ({
        apiVersion,
        kindName: kindName as string,
        model: scoped(MODELS[kindName]).WithLabel(LABEL_MANAGED_BY, MANAGER),
        namespace,
      })),
      {
        apiVersion: BACKUP_REF.apiVersion,
        kindName: BACKUP_REF.kind as string,
        model: scoped(Backup),
        namespace,
      },
    ];
  });
}

/**
 * Whether a kind has now listed everywhere it is watched: told each (kind, namespace) watch that
 * listed (`undefined`: the cluster-wide one), true once every namespace of the kind has.
 */
export function listingTally(
  namespaces: readonly string[],
): (kind: string, namespace: string | undefined) => boolean {
  const expected = new Set(namespaces.length === 0 ? [""] : namespaces);
  const listed = new Map<string, Set<string>>();
  return (kind, namespace) => {
    const done = listed.get(kind) ?? new Set<string>();
    done.add(namespace ?? "");
    listed.set(kind, done);
    return [...expected].every(ns => done.has(ns));
  };
}

/**
 * Starts the informers; returns a function that stops them. A kind counts as synced (its cache
 * answers misses with "does not exist") once its watch in every namespace has listed.
 */
export function startInformers(
  cache: ObjectCache,
  onEvent: InformerEvent,
  scope: InformerScope = { namespaces: [] },
): () => void {
  const log = Log.child({ component: "informers" });
  const listed = listingTally(scope.namespaces);
  const watchers = sourcesIn(scope.namespaces).map(({ apiVersion, kindName, model, namespace }) => {
    const watcher = model.Watch(
      (obj, phase) => {
        const event = applyEvent(cache, apiVersion, kindName, obj as KubeObject, phase as Phase);
        onEvent(phase as Phase, obj as KubeObject, event.outcome, event.previous);
      },
      watchSettings(namespace !== undefined),
    );
    const key = kindKeyOf({ apiVersion, kind: kindName });
    const where = { kind: key, ...(namespace === undefined ? {} : { namespace }) };
    // CONNECT follows the complete initial LIST: from then on a miss means "does not exist".
    watcher.events.on(WatchEvent.CONNECT, () => {
      if (namespace !== undefined) cache.markSynced(key, namespace);
      if (!listed(key, namespace)) return;
      if (!cache.isSynced(key)) log.info({ kind: key }, "Informer synced");
      cache.markSynced(key);
    });
    watchEvents(watcher, where, log);
    return watcher;
  });
  const databases = scope.namespaces.length > 0 && scope.onDatabase ? scope.onDatabase : undefined;
  const databaseWatchers = databases
    ? scope.namespaces.map(namespace => {
        const watcher = K8s(Database)
          .InNamespace(namespace)
          .Watch((db, phase) => databases(phase as Phase, db as KubeObject), watchSettings(true));
        watchEvents(watcher, { kind: "Database", namespace }, log);
        return watcher;
      })
    : [];
  return () => [...watchers, ...databaseWatchers].forEach(w => w.close());
}

type KfcWatcher = ReturnType<ReturnType<typeof K8s>["Watch"]>;

/**
 * Whether to log a watch's failure: the 1st, 2nd, 4th, 8th... since it last listed, so a watch
 * that keeps failing (a served namespace deleted) says so without a line every few seconds.
 */
export function failureLogGate(): (event: "failed" | "listed") => boolean {
  let failures = 0;
  return event => {
    if (event === "listed") {
      failures = 0;
      return false;
    }
    failures++;
    return (failures & (failures - 1)) === 0;
  };
}

/** A watch's failures, logged; one that cannot be re-established ends the process. */
function watchEvents(watcher: KfcWatcher, where: Record<string, string>, log: typeof Log): void {
  const gate = failureLogGate();
  let failures = 0;
  watcher.events.on(WatchEvent.CONNECT, () => {
    gate("listed");
    failures = 0;
  });
  watcher.events.on(WatchEvent.LIST_ERROR, (err: unknown) => {
    failures++;
    if (gate("failed")) {
      log.warn({ ...where, failures, error: errorMessage(err) }, "Informer list failed");
    }
  });
  // As Pepr does for its own watches: a watch that cannot be re-established ends the process,
  // so that Kubernetes restarts it rather than it running on a frozen cache.
  watcher.events.on(WatchEvent.GIVE_UP, (err: unknown) => {
    log.error({ ...where, error: errorMessage(err) }, "Informer gave up: exiting");
    process.exit(1);
  });
  watcher
    .start()
    .catch(err => log.error({ ...where, error: errorMessage(err) }, "Informer failed to start"));
}
