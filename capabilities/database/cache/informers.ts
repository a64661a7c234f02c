/**
 * The informers: one list+watch (cache/reflector.ts) per kind the operator reads (its children,
 * Backups and Databases), cluster-wide or in each namespace a namespaced install serves, feeding
 * the read cache. Children are label-selected server-side and then held only if they belong to a
 * known Database or Backup (cache/owners.ts): another tenant's objects wearing our labels are
 * dropped as they arrive. Owners are listed first in each scope; children start once they have.
 * A Database that arrives later, some of whose children were dropped while it was unknown (a
 * standby sees what its leader made), is handed on only after its namespace's children carrying
 * its name have been listed again, so its first reconcile reads a complete cache; one whose
 * children were never seen (a new Database) is handed on at once.
 */
import { Log } from "pepr";
import { API_VERSION, KIND } from "../api/database";
import { BACKUP_REF, CHILD_KINDS, kindKeyOf } from "../api/kinds";
import { LABEL_MANAGED_BY, MANAGER, databaseKey } from "../api/names";
import { KubeObject } from "../cluster/cluster";
import { errorMessage } from "../lib/errors";
import { apiSource } from "./api-source";
import { ObjectCache } from "./object-cache";
import { Owners, Revisit } from "./owners";
import { Phase, Reflector, ReflectorSource, ReflectorTimings } from "./reflector";

export type { Phase } from "./reflector";

/** What the server-side selector of children asks for: our label. */
export const isManaged = (obj: KubeObject): boolean =>
  obj.metadata?.labels?.[LABEL_MANAGED_BY] === MANAGER;

const MANAGED_SELECTOR = `${LABEL_MANAGED_BY}=${MANAGER}`;

/** The longest wait between two attempts of a failing list or watch. */
const MAX_RETRY_MS = 30_000;

/**
 * Timings from Pepr's watch settings (same environment variables), so all watches behave alike.
 * A namespaced install's watches never give up: a served namespace can be deleted, which its Role
 * goes with, and a watcher exiting on that would crash-loop until the list of namespaces changed;
 * the cache is read around meanwhile.
 */
export function informerTimings(
  namespaced: boolean,
  env: Record<string, string | undefined> = process.env,
  random: () => number = Math.random,
): ReflectorTimings {
  const int = (name: string, fallback: number) => {
    const n = Number.parseInt(env[name] ?? "", 10);
    return Number.isFinite(n) && n > 0 ? n : fallback;
  };
  const watchLimit = int("PEPR_LAST_SEEN_LIMIT_SECONDS", 300);
  return {
    retryMs: int("PEPR_RESYNC_DELAY_SECONDS", 5) * 1000,
    maxRetryMs: MAX_RETRY_MS,
    relistMs: int("PEPR_RELIST_INTERVAL_SECONDS", 600) * 1000,
    // Spread, so the watches of a kind do not all reconnect at once.
    watchSeconds: () => Math.max(1, Math.round(watchLimit * (0.75 + 0.25 * random()))),
    failureMax: namespaced ? undefined : int("PEPR_RESYNC_FAILURE_MAX", 5),
  };
}

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
  stamp(obj, apiVersion, kindName);
  const key = kindKeyOf({ apiVersion, kind: kindName });
  const meta = obj.metadata ?? {};
  const previous = cache.get(key, meta.namespace ?? "", meta.name ?? "");
  if (phase === "DELETED") {
    cache.remove(key, meta.namespace ?? "", meta.name ?? "", meta.uid);
    return { outcome: "removed", previous };
  }
  return { outcome: cache.upsert(key, obj), previous };
}

/** Items of a LIST carry no apiVersion/kind: stamp them. */
function stamp(obj: KubeObject, apiVersion: string, kindName: string): KubeObject {
  obj.apiVersion ??= apiVersion;
  obj.kind ??= kindName;
  return obj;
}

/** `f` on the first call only (a relist lists again; an owner kind counts once). */
function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (!done) f();
    done = true;
  };
}

/** Where the informers look: the whole cluster, or each namespace a namespaced install serves. */
export interface InformerScope {
  /** Empty: the whole cluster (one watch per kind). Else one watch per kind and namespace. */
  namespaces: readonly string[];
  /** Each Database event (an arriving Database once its children are in the cache). */
  onDatabase: (phase: Phase, db: KubeObject) => void;
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

export interface Informers {
  stop(): void;
  /** Objects the children's and Backups' watches hold now. */
  held(): number;
}

/** How a kind's source is made (the apiserver's, or a test's). */
export type SourceFactory = (
  ref: { apiVersion: string; kind: string },
  scope: { namespace?: string; selector?: string },
) => ReflectorSource;

interface Child {
  kind: string;
  namespace?: string;
  reflector: Reflector;
}

export interface InformerDeps {
  cache: ObjectCache;
  owners: Owners;
  onEvent: InformerEvent;
  source?: SourceFactory;
  timings?: (namespaced: boolean) => ReflectorTimings;
  sleep?: (ms: number) => Promise<void>;
}

/** Starts the informers; returns how to stop them. */
export function startInformers(deps: InformerDeps, scope: InformerScope): Informers {
  const { cache, owners, onEvent } = deps;
  const source = deps.source ?? apiSource;
  const timingsOf = deps.timings ?? informerTimings;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>(r => setTimeout(r, ms)));
  const log = Log.child({ component: "informers" });
  const listed = listingTally(scope.namespaces);
  const children: Child[] = [];
  const all: Reflector[] = [];
  let stopped = false;
  /** Arriving Databases waiting for their revisit: the latest object of each. */
  const pending = new Map<string, KubeObject>();

  const reflector = (
    where: { kind: string; namespace?: string },
    src: ReflectorSource,
    keep: (obj: KubeObject) => boolean,
    handle: (phase: Phase, obj: KubeObject) => void,
    onListed: () => void,
  ): Reflector => {
    const gate = failureLogGate();
    const context = { ...where };
    const r = new Reflector({
      source: src,
      keep,
      onEvent: handle,
      onListed: () => {
        gate("listed");
        onListed();
      },
      onFailure: (err, failures) => {
        if (gate("failed"))
          log.warn({ ...context, failures, error: errorMessage(err) }, "Informer failed");
      },
      // As Pepr does for its own watches: a watch that cannot be re-established ends the
      // process, so that Kubernetes restarts it rather than it running on a frozen cache.
      onGiveUp: err => {
        log.error({ ...context, error: errorMessage(err) }, "Informer gave up: exiting");
        process.exit(1);
      },
      timings: timingsOf(where.namespace !== undefined),
    });
    all.push(r);
    return r;
  };

  const markListed = (key: string, namespace: string | undefined) => {
    if (namespace !== undefined) cache.markSynced(key, namespace);
    if (!listed(key, namespace)) return;
    if (!cache.isSynced(key)) log.info({ kind: key }, "Informer synced");
    cache.markSynced(key);
  };

  const start = (r: Reflector, where: Record<string, string | undefined>) =>
    void r
      .start()
      .catch(err => log.error({ ...where, error: errorMessage(err) }, "Informer stopped"));

  /** Lists again the children an owner's arrival may bring, retrying until done or stopped. */
  async function revisit(target: Revisit, wanted: () => boolean): Promise<void> {
    const covering = children.filter(
      c =>
        (c.namespace === undefined || c.namespace === target.namespace) &&
        (target.kinds === undefined || target.kinds.includes(c.kind)),
    );
    for (let attempt = 1; !stopped && wanted(); attempt++) {
      try {
        await Promise.all(
          covering.map(c => c.reflector.revisit(target.namespace, target.selector)),
        );
        return;
      } catch (err) {
        log.warn(
          { ...target, attempt, error: errorMessage(err) },
          "Could not list an owner's children",
        );
        await sleep(Math.min(1000 * 2 ** attempt, MAX_RETRY_MS));
      }
    }
  }

  function onDatabase(phase: Phase, db: KubeObject): void {
    const namespace = db.metadata?.namespace ?? "";
    const name = db.metadata?.name ?? "";
    const key = databaseKey(namespace, name);
    stamp(db, API_VERSION, KIND);
    if (phase === "DELETED") {
      owners.removeDatabase(namespace, name);
      pending.delete(key);
      scope.onDatabase(phase, db);
      return;
    }
    if (pending.has(key)) {
      pending.set(key, db);
      return;
    }
    const target = owners.addDatabase(namespace, name);
    if (!target || children.length === 0) {
      scope.onDatabase(phase, db);
      return;
    }
    pending.set(key, db);
    void revisit(target, () => pending.has(key)).then(() => {
      const latest = pending.get(key);
      pending.delete(key);
      if (latest && !stopped) scope.onDatabase("MODIFIED", latest);
    });
  }

  function onBackup(phase: Phase, backup: KubeObject): void {
    const namespace = backup.metadata?.namespace ?? "";
    const name = backup.metadata?.name ?? "";
    const event = applyEvent(cache, BACKUP_REF.apiVersion, BACKUP_REF.kind, backup, phase);
    if (phase === "DELETED") owners.removeBackup(namespace, name);
    else {
      const target = owners.addBackup(namespace, name);
      if (target && children.length > 0) void revisit(target, () => !stopped);
    }
    onEvent(phase, backup, event.outcome, event.previous);
  }

  const scopes = scope.namespaces.length === 0 ? [undefined] : scope.namespaces;
  for (const namespace of scopes) {
    const where = namespace === undefined ? {} : { namespace };
    // Children start once this scope's Databases and Backups have listed: an owner known first
    // means its children are held from the children's first list on.
    let ownersToList = 2;
    const ownersListed = () => {
      if (--ownersToList !== 0) return;
      for (const { apiVersion, kind } of CHILD_KINDS) {
        const key = kindKeyOf({ apiVersion, kind });
        const r = reflector(
          { kind: key, ...where },
          source({ apiVersion, kind }, { namespace, selector: MANAGED_SELECTOR }),
          owners.keep,
          (phase, obj) => {
            const event = applyEvent(cache, apiVersion, kind, obj, phase);
            onEvent(phase, obj, event.outcome, event.previous);
          },
          () => markListed(key, namespace),
        );
        children.push({ kind, namespace, reflector: r });
        start(r, { kind: key, ...where });
      }
    };
    const databasesListed = once(ownersListed);
    const backupsListed = once(ownersListed);
    const databases = reflector(
      { kind: "Database", ...where },
      source({ apiVersion: API_VERSION, kind: KIND }, { namespace }),
      () => true,
      onDatabase,
      databasesListed,
    );
    const backupKey = kindKeyOf(BACKUP_REF);
    const backups = reflector(
      { kind: backupKey, ...where },
      source(BACKUP_REF, { namespace }),
      () => true,
      onBackup,
      () => {
        markListed(backupKey, namespace);
        backupsListed();
      },
    );
    start(databases, { kind: "Database", ...where });
    start(backups, { kind: backupKey, ...where });
  }

  return {
    stop: () => {
      stopped = true;
      all.forEach(r => r.stop());
    },
    held: () => children.reduce((n, c) => n + c.reflector.size, 0),
  };
}
