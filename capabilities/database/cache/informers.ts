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

/** Pepr's watch settings (same environment variables), so all watches behave alike. */
const watchCfg = () => {
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

/** Starts the informers; returns a function that stops them. */
export function startInformers(cache: ObjectCache, onEvent: InformerEvent): () => void {
  const log = Log.child({ component: "informers" });
  // Children carry our label; Backups are the user's objects (or made from a schedule) and
  // carry none, so they are watched whole.
  const sources = [
    ...CHILD_KINDS.map(({ apiVersion, kind: kindName }) => ({
      apiVersion,
      kindName: kindName as string,
      model: K8s(MODELS[kindName]).WithLabel(LABEL_MANAGED_BY, MANAGER),
    })),
    { apiVersion: BACKUP_REF.apiVersion, kindName: BACKUP_REF.kind as string, model: K8s(Backup) },
  ];
  const watchers = sources.map(({ apiVersion, kindName, model }) => {
    const watcher = model.Watch((obj, phase) => {
      const event = applyEvent(cache, apiVersion, kindName, obj as KubeObject, phase as Phase);
      onEvent(phase as Phase, obj as KubeObject, event.outcome, event.previous);
    }, watchCfg());
    const key = kindKeyOf({ apiVersion, kind: kindName });
    // CONNECT follows the complete initial LIST: from then on a miss means "does not exist".
    watcher.events.on(WatchEvent.CONNECT, () => {
      if (!cache.isSynced(key)) log.info({ kind: key }, "Informer synced");
      cache.markSynced(key);
    });
    watcher.events.on(WatchEvent.LIST_ERROR, (err: unknown) =>
      log.warn({ kind: key, error: errorMessage(err) }, "Informer list failed"),
    );
    // As Pepr does for its own watches: a watch that cannot be re-established ends the process,
    // so that Kubernetes restarts it rather than it running on a frozen cache.
    watcher.events.on(WatchEvent.GIVE_UP, (err: unknown) => {
      log.error({ kind: key, error: errorMessage(err) }, "Informer gave up: exiting");
      process.exit(1);
    });
    watcher
      .start()
      .catch(err => log.error({ kind: key, error: errorMessage(err) }, "Informer failed to start"));
    return watcher;
  });
  return () => watchers.forEach(w => w.close());
}
