import { KubeObject } from "../cluster/cluster";
import {
  failureLogGate,
  informerTimings,
  listingTally,
  Phase,
  SourceFactory,
  startInformers,
} from "./informers";
import { ObjectCache } from "./object-cache";
import { Owners } from "./owners";
import { ListScope, ReflectorTimings, StreamEvent } from "./reflector";

describe("listingTally: a kind is synced once it has listed everywhere it is watched", () => {
  it("cluster-wide: at its one watch's first list", () => {
    const listed = listingTally([]);
    expect(listed("Secret", undefined)).toBe(true);
  });

  it("namespaced: only once every namespace's watch has listed, kind by kind", () => {
    const listed = listingTally(["shop", "billing"]);
    expect(listed("Secret", "shop")).toBe(false);
    expect(listed("Pod", "billing")).toBe(false);
    // A reconnect of the same namespace is not another namespace.
    expect(listed("Secret", "shop")).toBe(false);
    expect(listed("Secret", "billing")).toBe(true);
    expect(listed("Pod", "shop")).toBe(true);
  });
});

describe("informerTimings: Pepr's watch settings", () => {
  it("gives up after Pepr's 5 failures cluster-wide (the process exits and restarts)", () => {
    expect(informerTimings(false, {}).failureMax).toBe(5);
  });

  it("never gives up in a namespace (one served may be deleted, its Role with it)", () => {
    expect(informerTimings(true, {}).failureMax).toBeUndefined();
  });

  it("reads the same environment variables as Pepr", () => {
    const timings = informerTimings(
      false,
      {
        PEPR_RESYNC_FAILURE_MAX: "7",
        PEPR_RESYNC_DELAY_SECONDS: "2",
        PEPR_RELIST_INTERVAL_SECONDS: "60",
        PEPR_LAST_SEEN_LIMIT_SECONDS: "100",
      },
      () => 0,
    );
    expect(timings).toMatchObject({ failureMax: 7, retryMs: 2000, relistMs: 60_000 });
    expect(timings.watchSeconds()).toBe(75);
  });

  it("spreads watch lengths between 3/4 of the limit and the limit", () => {
    expect(informerTimings(false, {}, () => 0).watchSeconds()).toBe(225);
    expect(informerTimings(false, {}, () => 1).watchSeconds()).toBe(300);
  });
});

describe("failureLogGate", () => {
  it("logs the 1st, 2nd, 4th, 8th failure since the last list, and again from 1 after one", () => {
    const gate = failureLogGate();
    const logged = Array.from({ length: 9 }, (_, i) => (gate("failed") ? i + 1 : 0)).filter(
      Boolean,
    );
    expect(logged).toEqual([1, 2, 4, 8]);
    expect(gate("listed")).toBe(false);
    expect(gate("failed")).toBe(true);
  });
});

/** An apiserver in memory: lists by namespace and label selector, watches fed by `emit`. */
class FakeApi {
  readonly objects = new Map<string, KubeObject[]>();
  readonly lists: { kind: string; scope: ListScope & { base?: string } }[] = [];
  private readonly feeds = new Map<string, ((event: StreamEvent) => void)[]>();

  put(kind: string, obj: KubeObject): void {
    this.objects.set(kind, [...(this.objects.get(kind) ?? []), obj]);
  }

  emit(kind: string, type: string, obj: KubeObject): void {
    if (type === "DELETED")
      this.objects.set(
        kind,
        (this.objects.get(kind) ?? []).filter(o => o.metadata?.name !== obj.metadata?.name),
      );
    else this.put(kind, obj);
    for (const feed of this.feeds.get(kind) ?? []) feed({ type, object: obj });
  }

  factory: SourceFactory = (ref, scope) => ({
    list: async page => {
      this.lists.push({ kind: ref.kind, scope: { ...page, base: scope.selector } });
      const selectors = [scope.selector, page.selector].filter(Boolean).join(",");
      const wanted = selectors === "" ? [] : selectors.split(",").map(s => s.split("="));
      const namespace = page.namespace ?? scope.namespace;
      const items = (this.objects.get(ref.kind) ?? []).filter(
        o =>
          (namespace === undefined || o.metadata?.namespace === namespace) &&
          wanted.every(([k, v]) => o.metadata?.labels?.[k] === v),
      );
      return { items, resourceVersion: "1" };
    },
    watch: (_from, signal) => {
      const queue: StreamEvent[] = [];
      let wake: () => void = () => undefined;
      this.feeds.set(ref.kind, [
        ...(this.feeds.get(ref.kind) ?? []),
        event => {
          queue.push(event);
          wake();
        },
      ]);
      return (async function* () {
        while (!signal.aborted) {
          const next = queue.shift();
          if (next) yield next;
          else
            await new Promise<void>(resolve => {
              wake = resolve;
              signal.addEventListener("abort", () => resolve(), { once: true });
            });
        }
      })();
    },
  });
}

const TIMINGS: ReflectorTimings = {
  retryMs: 10,
  maxRetryMs: 10,
  relistMs: 3_600_000,
  watchSeconds: () => 300,
};

const settle = () => new Promise(resolve => setTimeout(resolve, 20));

const database = (namespace: string, name: string): KubeObject => ({
  metadata: { namespace, name, uid: `db-${namespace}-${name}`, resourceVersion: "1" },
});

const configMap = (namespace: string, name: string, db: string, rv = "1"): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    namespace,
    name,
    uid: `cm-${namespace}-${name}`,
    resourceVersion: rv,
    labels: { "app.kubernetes.io/managed-by": "pgkeeper", "pgkeeper.dev/database": db },
  },
});

function run(api: FakeApi, namespaces: string[] = []) {
  const cache = new ObjectCache(false);
  const owners = new Owners();
  const databases: [Phase, string][] = [];
  const children: [Phase, string][] = [];
  const informers = startInformers(
    {
      cache,
      owners,
      onEvent: (phase, obj) => children.push([phase, `${obj.kind} ${obj.metadata?.name}`]),
      source: api.factory,
      timings: () => TIMINGS,
      sleep: async () => undefined,
    },
    {
      namespaces,
      onDatabase: (phase, db) => {
        // What reconcile would read at that moment: the Database's children must be there.
        const cms = cache.list("v1/ConfigMap", db.metadata?.namespace ?? "", {
          "pgkeeper.dev/database": db.metadata?.name ?? "",
        });
        databases.push([phase, `${db.metadata?.name} with ${cms.length} ConfigMap(s)`]);
      },
    },
  );
  return { cache, owners, databases, children, informers };
}

const configMapNames = (cache: ObjectCache, namespace: string) =>
  cache.list("v1/ConfigMap", namespace, {}).map(o => o.metadata?.name);

describe("startInformers: the cache holds objects of known Databases only", () => {
  it("lists Databases and Backups before any child kind, children label-selected", async () => {
    const api = new FakeApi();
    api.put("Database", database("shop", "orders"));
    const { informers } = run(api);
    await settle();
    const order = api.lists.map(l => l.kind);
    expect(order.slice(0, 2).sort()).toEqual(["Backup", "Database"]);
    expect(order.slice(2)).toHaveLength(11);
    expect(api.lists[2].scope.base).toBe("app.kubernetes.io/managed-by=pgkeeper");
    informers.stop();
  });

  it("drops objects wearing our labels in namespaces or names with no known Database", async () => {
    const api = new FakeApi();
    api.put("Database", database("shop", "orders"));
    api.put("ConfigMap", configMap("shop", "orders-config", "orders"));
    api.put("ConfigMap", configMap("shop", "fake", "ghost"));
    api.put("ConfigMap", configMap("evil", "orders-config", "orders"));
    const { cache, informers, databases } = run(api);
    await settle();
    expect(configMapNames(cache, "shop")).toEqual(["orders-config"]);
    expect(configMapNames(cache, "evil")).toEqual([]);
    expect(informers.held()).toBe(1);
    expect(databases).toEqual([["ADDED", "orders with 0 ConfigMap(s)"]]);
    // Delivered by the watch later: the same rule.
    api.emit("ConfigMap", "ADDED", configMap("evil", "more", "orders"));
    api.emit("ConfigMap", "ADDED", configMap("shop", "orders-extra", "orders"));
    await settle();
    expect(configMapNames(cache, "evil")).toEqual([]);
    expect(configMapNames(cache, "shop").sort()).toEqual(["orders-config", "orders-extra"]);
    informers.stop();
  });

  it("hands on a Database arriving later only once its existing children are in the cache", async () => {
    const api = new FakeApi();
    api.put("ConfigMap", configMap("shop", "late-config", "late"));
    const { cache, informers, databases } = run(api);
    await settle();
    expect(configMapNames(cache, "shop")).toEqual([]);
    api.emit("Database", "ADDED", database("shop", "late"));
    await settle();
    expect(databases).toEqual([["MODIFIED", "late with 1 ConfigMap(s)"]]);
    const revisits = api.lists.filter(l => l.scope.namespace === "shop");
    expect(revisits).toHaveLength(11);
    expect(revisits.every(l => l.scope.selector === "pgkeeper.dev/database=late")).toBe(true);
    informers.stop();
  });

  it("hands on a new Database at once, listing nothing, when none of its children were dropped", async () => {
    const api = new FakeApi();
    api.put("ConfigMap", configMap("shop", "ghost-config", "ghost")); // another name's
    const { informers, databases } = run(api);
    await settle();
    const listed = api.lists.length;
    api.emit("Database", "ADDED", database("shop", "fresh"));
    await settle();
    expect(databases).toEqual([["ADDED", "fresh with 0 ConfigMap(s)"]]);
    expect(api.lists).toHaveLength(listed);
    informers.stop();
  });

  it("a deleted Database is forgotten: its children are not kept from their next event on", async () => {
    const api = new FakeApi();
    api.put("Database", database("shop", "orders"));
    api.put("ConfigMap", configMap("shop", "orders-config", "orders"));
    const { cache, informers, databases, owners } = run(api);
    await settle();
    api.emit("Database", "DELETED", database("shop", "orders"));
    await settle();
    expect(databases.at(-1)).toEqual(["DELETED", "orders with 1 ConfigMap(s)"]);
    expect(owners.hasDatabase("shop", "orders")).toBe(false);
    api.emit("ConfigMap", "MODIFIED", configMap("shop", "orders-config", "orders", "2"));
    await settle();
    expect(configMapNames(cache, "shop")).toEqual([]);
    informers.stop();
  });

  it("namespaced: one set of watches per namespace, each scope's children after its owners", async () => {
    const api = new FakeApi();
    api.put("Database", database("shop", "orders"));
    api.put("Database", database("elsewhere", "orders"));
    api.put("ConfigMap", configMap("elsewhere", "orders-config", "orders"));
    const { cache, informers } = run(api, ["shop", "billing"]);
    await settle();
    expect(api.lists.filter(l => l.kind === "Pod")).toHaveLength(2);
    expect(configMapNames(cache, "elsewhere")).toEqual([]);
    expect(cache.isSynced("v1/ConfigMap")).toBe(true);
    informers.stop();
  });
});
