/**
 * The watch-fed read cache: the objects our watches deliver (and the objects our own writes
 * return), by kind, namespace and name. Reconcile reads from here instead of the apiserver, so a
 * converged reconcile makes no GET or LIST calls.
 *
 * Objects are stored as delivered, not copied, and only here: the informers' reflectors remember
 * names, versions and labels (cache/reflector.ts). Readers must not mutate what they get; in tests
 * and development the cache freezes what it stores, so a mutation throws where it happens.
 */
import { KindKey } from "../api/kinds";
import { KubeObject } from "../cluster/cluster";
import { deepFreeze, freezesShared } from "../lib/freeze";
import { LABEL_DATABASE } from "../api/names";
import { SharedTexts } from "./shared-texts";
import { slim } from "./slim";

/** What an upsert did: `stale` and `unchanged` mean the cache already knew better or the same. */
export type UpsertOutcome = "added" | "changed" | "unchanged" | "stale";

/** etcd revisions are integers in practice; when either is not, the newer delivery wins. */
function compareVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (a === undefined || b === undefined || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const [x, y] = [BigInt(a), BigInt(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** How an incoming object relates to the cached one with the same name. */
function versionOutcome(cached: KubeObject, incoming: KubeObject): UpsertOutcome {
  const order = compareVersions(
    incoming.metadata?.resourceVersion,
    cached.metadata?.resourceVersion,
  );
  if (order !== undefined && order < 0) return "stale";
  if (order === 0 && cached.metadata?.uid === incoming.metadata?.uid) return "unchanged";
  return "changed";
}

const indexKey = (kind: KindKey, namespace: string, database: string): string =>
  `${kind}\u0000${namespace}\u0000${database}`;

const databaseOf = (obj: KubeObject | undefined): string | undefined =>
  obj?.metadata?.labels?.[LABEL_DATABASE];

const matches = (obj: KubeObject, labels: Record<string, string>): boolean =>
  Object.entries(labels).every(([k, v]) => obj.metadata?.labels?.[k] === v);

export class ObjectCache {
  /** kind → namespace → name → object */
  private readonly kinds = new Map<KindKey, Map<string, Map<string, KubeObject>>>();
  private readonly synced = new Set<KindKey>();
  /** Names by kind, namespace and `pgkeeper.dev/database` label (see list). */
  private readonly byDatabase = new Map<string, Set<string>>();
  private readonly syncedIn = new Map<KindKey, Set<string>>();
  /** Long texts many Databases' objects carry, held once (slim.ts). */
  private readonly texts = new SharedTexts();

  constructor(private readonly freeze = freezesShared()) {}

  get(kind: KindKey, namespace: string, name: string): KubeObject | undefined {
    return this.kinds.get(kind)?.get(namespace)?.get(name);
  }

  /**
   * The objects of `kind` in `namespace` carrying `labels`. Selected by Database, only that
   * Database's are looked at (an index): a namespace of a thousand Databases is not scanned on
   * every pass of each.
   */
  list(kind: KindKey, namespace: string, labels: Record<string, string>): KubeObject[] {
    const objects = this.kinds.get(kind)?.get(namespace);
    if (!objects) return [];
    const database = labels[LABEL_DATABASE];
    const candidates =
      database === undefined
        ? objects.values()
        : [...(this.byDatabase.get(indexKey(kind, namespace, database)) ?? [])].map(
            name => objects.get(name)!,
          );
    return [...candidates].filter(o => matches(o, labels));
  }

  /**
   * Stores `obj` unless the cache holds a newer version (a watch event can arrive after the
   * response of the write that superseded it), cut to what pgkeeper reads (slim.ts).
   */
  upsert(kind: KindKey, obj: KubeObject): UpsertOutcome {
    const stored = slim(obj, this.texts);
    const meta = stored.metadata ?? {};
    const byNamespace = this.namespaceMap(kind, meta.namespace ?? "");
    const cached = byNamespace.get(meta.name ?? "");
    const outcome = cached ? versionOutcome(cached, stored) : "added";
    if (outcome === "added" || outcome === "changed") {
      byNamespace.set(meta.name ?? "", this.freeze ? deepFreeze(stored) : stored);
      this.reindex(kind, cached, stored);
    }
    return outcome;
  }

  /** Removes the object; with `uid`, only if the cached one is that very object (not a successor). */
  remove(kind: KindKey, namespace: string, name: string, uid?: string): boolean {
    const byNamespace = this.kinds.get(kind)?.get(namespace);
    const cached = byNamespace?.get(name);
    if (!byNamespace || !cached) return false;
    if (uid !== undefined && cached.metadata?.uid !== undefined && cached.metadata.uid !== uid)
      return false;
    byNamespace.delete(name);
    if (byNamespace.size === 0) this.kinds.get(kind)?.delete(namespace);
    this.reindex(kind, cached, undefined);
    return true;
  }

  /** Moves an object between the Databases' sets when its label changed (or it came or went). */
  private reindex(kind: KindKey, before: KubeObject | undefined, after: KubeObject | undefined) {
    const from = databaseOf(before);
    const to = databaseOf(after);
    if (before && after && from === to) return;
    const { namespace = "", name = "" } = (after ?? before)?.metadata ?? {};
    if (from !== undefined) this.unindex(indexKey(kind, namespace, from), name);
    if (to !== undefined) {
      const key = indexKey(kind, namespace, to);
      this.byDatabase.set(key, (this.byDatabase.get(key) ?? new Set<string>()).add(name));
    }
  }

  private unindex(key: string, name: string): void {
    const names = this.byDatabase.get(key);
    if (!names) return;
    names.delete(name);
    if (names.size === 0) this.byDatabase.delete(key);
  }

  /**
   * The kind's watch has listed everything (in `namespace`, for a namespaced install's watch; else
   * everywhere this operator watches): a miss there now means the object does not exist.
   */
  markSynced(kind: KindKey, namespace?: string): void {
    if (namespace === undefined) this.synced.add(kind);
    else this.syncedIn.set(kind, new Set([...(this.syncedIn.get(kind) ?? []), namespace]));
  }

  /**
   * Whether a miss of `kind` (in `namespace`) means absent. By namespace, so that one namespace
   * whose watch cannot list (a served namespace deleted) leaves the others read from the cache.
   */
  isSynced(kind: KindKey, namespace?: string): boolean {
    return (
      this.synced.has(kind) ||
      (namespace !== undefined && (this.syncedIn.get(kind)?.has(namespace) ?? false))
    );
  }

  /** The kinds synced everywhere this operator watches. */
  syncedKinds(): KindKey[] {
    return [...this.synced];
  }

  /** Objects held, by kind (for logs and benchmarks). */
  sizes(): Record<KindKey, number> {
    const out: Record<KindKey, number> = {};
    for (const [kind, namespaces] of this.kinds) {
      out[kind] = [...namespaces.values()].reduce((n, m) => n + m.size, 0);
    }
    return out;
  }

  private namespaceMap(kind: KindKey, namespace: string): Map<string, KubeObject> {
    let namespaces = this.kinds.get(kind);
    if (!namespaces) this.kinds.set(kind, (namespaces = new Map()));
    let names = namespaces.get(namespace);
    if (!names) namespaces.set(namespace, (names = new Map()));
    return names;
  }
}
