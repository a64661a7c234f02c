import { Database } from "../api/database";
import { LABEL_MANAGED_BY, MANAGER, commonLabels, selectorLabels } from "../api/names";
import { DEFAULT_CONFIG } from "../lib/config";
import { KubeObject } from "../cluster/cluster";
import { ReconcileDeps, reconcile } from "../reconcile/reconcile";
import { FakeCluster } from "../../../test/unit/fake-cluster";
import { CHILD_KINDS, DATABASE_KIND, kindKeyOf, BACKUP_KIND_KEY } from "../api/kinds";
import { CachedCluster } from "./cached-cluster";
import { ObjectCache } from "./object-cache";

const NS = "prod";
const NAME = "orders";
const ours = (obj: KubeObject): boolean => obj.metadata?.labels?.[LABEL_MANAGED_BY] === MANAGER;

function setup(spec: Record<string, unknown> = {}) {
  const api = new FakeCluster();
  const cache = new ObjectCache();
  const cluster = new CachedCluster(api, cache, ours);
  let passwords = 0;
  const deps: ReconcileDeps = {
    cluster,
    config: DEFAULT_CONFIG,
    now: () => new Date("2026-11-29T10:00:00Z"),
    validate: () => [],
    newPassword: () => `pw-${++passwords}`,
  };
  api.addDatabase({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name: NAME, namespace: NS },
    spec: { version: "16", storage: { size: "1Gi" }, ...spec },
  } as Database);
  /** What the informers do once their first LIST is in: every labelled object cached. */
  const syncInformers = () => {
    for (const obj of api.objects.values())
      if (ours(obj)) cache.upsert(kindKeyOf(obj), structuredClone(obj));
    for (const kind of CHILD_KINDS) cache.markSynced(kindKeyOf(kind));
    cache.markSynced(BACKUP_KIND_KEY);
  };
  const reads = () => ({ get: api.calls.get, list: api.calls.list });
  let version = 900;
  /** The stored Database changed as `change` says, and its watch event in the cache. */
  const editDatabase = (change: (db: Database) => Database) => {
    const db = change(api.databases.get(`${NS}/${NAME}`)!);
    db.metadata = { ...db.metadata, resourceVersion: String(version++) };
    api.databases.set(`${NS}/${NAME}`, db);
    cache.upsert(DATABASE_KIND, structuredClone(db));
  };
  return {
    api,
    cache,
    cluster,
    deps,
    syncInformers,
    reads,
    editDatabase,
    run: () => reconcile(deps, NS, NAME),
  };
}

const addPod = (api: FakeCluster, ordinal: number) =>
  api.put({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${NAME}-${ordinal}`,
      namespace: NS,
      labels: { ...commonLabels(NAME), ...selectorLabels(NAME) },
    },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  });

describe("CachedCluster", () => {
  it("before the CronJob informer has listed, a pass reads CronJobs by LIST, never by GET (the operator may not get CronJobs)", async () => {
    const { api, cache, deps, syncInformers, run } = setup({ instances: 3 });
    syncInformers();
    await run(); // creates the children
    syncInformers();
    // A new leader's cache: every kind listed but CronJobs.
    const unlisted = new ObjectCache();
    for (const kind of [...CHILD_KINDS.map(kindKeyOf), DATABASE_KIND]) {
      for (const obj of cache.list(kind, NS, {})) unlisted.upsert(kind, obj);
      if (kind !== "batch/v1/CronJob") unlisted.markSynced(kind);
    }
    unlisted.markSynced(BACKUP_KIND_KEY);
    const gets: string[] = [];
    const get = api.get.bind(api);
    api.get = ref => (gets.push(ref.kind), get(ref));
    await reconcile({ ...deps, cluster: new CachedCluster(api, unlisted, ours) }, NS, NAME);
    expect(gets).not.toContain("CronJob");
  });

  it("a converged reconcile makes no GET and no LIST (and no write)", async () => {
    const { api, syncInformers, reads, run } = setup({ instances: 3 });
    addPod(api, 0);
    addPod(api, 1);
    addPod(api, 2);
    syncInformers();
    await run(); // creates the children
    await run(); // pods labelled, status written
    const before = { ...reads(), writes: api.mutatingCalls };
    const report = await run();
    expect(report.writes).toBe(0);
    expect({ ...reads(), writes: api.mutatingCalls }).toEqual(before);
  });

  it("the same reconcile on the plain API reads every child (what the cache saves)", async () => {
    const { api, deps, run } = setup({ instances: 3 });
    deps.cluster = api;
    await run();
    await run();
    const before = reads(api);
    await run();
    expect(reads(api).get - before.get).toBeGreaterThan(5);
    expect(reads(api).list - before.list).toBeGreaterThan(0);
  });

  it("a new Database's children are created with one request each, none read first", async () => {
    const { api, syncInformers, run } = setup({ instances: 3 });
    syncInformers();
    await run();
    expect(api.calls.get).toBe(1); // the Database: no Database informer feeds this cache
    expect(api.calls.apply).toBe(0);
    expect(api.calls.create).toBeGreaterThan(8);
    expect(api.find("StatefulSet", NS, NAME)?.metadata?.managedFields).toEqual([
      { manager: "pepr", operation: "Update" },
    ]);
  });

  it("a foreign object with a child's name fails the create, is read, and left alone", async () => {
    const { api, syncInformers, run } = setup();
    api.put({ apiVersion: "v1", kind: "Service", metadata: { name: `${NAME}-rw`, namespace: NS } });
    syncInformers(); // not labelled by us: the informer never saw it
    await expect(run()).rejects.toMatchObject({ reason: "OwnershipConflict" });
    expect(api.find("Service", NS, `${NAME}-rw`)?.metadata?.labels).toBeUndefined();
    expect(api.calls.get).toBe(2); // the Database, and the one object whose create failed
  });

  it("a spec change adopts a created child's fields once, then applies (dropped fields go)", async () => {
    const { api, cluster, deps, syncInformers, editDatabase, run } = setup({ instances: 3 });
    syncInformers();
    await run();
    editDatabase(db => ({
      ...db,
      metadata: { ...db.metadata, generation: 2 },
      spec: { ...db.spec!, instances: 2 },
    }));
    await run();
    expect(api.calls.adoptCreatedFields).toBeGreaterThanOrEqual(1);
    expect(api.find("StatefulSet", NS, NAME)?.metadata?.managedFields).toEqual([
      { manager: "pepr", operation: "Apply" },
    ]);
    const adopted = api.calls.adoptCreatedFields;
    editDatabase(db => ({
      ...db,
      metadata: { ...db.metadata, generation: 3 },
      spec: { ...db.spec!, instances: 3 },
    }));
    await run();
    expect((api.find("StatefulSet", NS, NAME)?.spec as { replicas?: number }).replicas).toBe(3);
    expect(api.calls.adoptCreatedFields).toBe(adopted); // once per object, ever
    expect(deps.cluster).toBe(cluster);
  });

  it("our own child with its labels removed by hand fails the create, is read, and relabelled only", async () => {
    const { api, cache, syncInformers, run } = setup();
    syncInformers();
    await run();
    const svc = api.find("Service", NS, `${NAME}-rw`)!;
    api.put({ ...svc, metadata: { ...svc.metadata, labels: {} } });
    cache.remove("v1/Service", NS, `${NAME}-rw`); // the watch's DELETED: out of the selector
    // Only the labels go back, and the pass fails: what it built assumed the object absent.
    await expect(run()).rejects.toMatchObject({ reason: "LabelsRestored" });
    expect(api.find("Service", NS, `${NAME}-rw`)?.metadata?.labels).toMatchObject(
      commonLabels(NAME),
    );
    await run(); // from the object as it is
  });

  it("a new Database whose credentials Secret lost its labels keeps the password it holds", async () => {
    const { api, cache, syncInformers, run } = setup();
    syncInformers();
    await run();
    const app = api.find("Secret", NS, `${NAME}-app`)!;
    api.put({ ...app, metadata: { ...app.metadata, labels: {} } }); // removed by hand
    cache.remove("v1/Secret", NS, `${NAME}-app`);
    await run().catch(() => undefined); // builds a new password: it must never reach the Secret
    await run();
    expect(api.find("Secret", NS, `${NAME}-app`)?.data).toEqual(app.data);
  });

  it("a Database that held data: a Secret missing from the cache is read, never built anew", async () => {
    const { api, cache, syncInformers, editDatabase, run } = setup();
    syncInformers();
    await run();
    editDatabase(db => ({
      ...db,
      status: { ...db.status, initializedAt: "2026-11-29T10:00:00Z" },
    }));
    const app = api.find("Secret", NS, `${NAME}-app`)!;
    const ca = api.find("Secret", NS, `${NAME}-ca`)!;
    for (const secret of [app, ca]) {
      api.put({ ...secret, metadata: { ...secret.metadata, labels: {} } }); // removed by hand
      cache.remove("v1/Secret", NS, secret.metadata!.name!); // the watch's DELETED
    }
    const gets = api.calls.get;
    // One pass puts both Secrets' labels back (one wave) and fails; the next converges.
    await expect(run()).rejects.toMatchObject({ reason: "LabelsRestored" });
    await run();
    expect(api.calls.get).toBeGreaterThan(gets);
    expect(api.find("Secret", NS, `${NAME}-app`)?.data).toEqual(app.data); // the same password
    expect(api.find("Secret", NS, `${NAME}-ca`)?.data).toEqual(ca.data); // the same CA
    expect(api.find("Secret", NS, `${NAME}-app`)?.metadata?.labels).toMatchObject(
      commonLabels(NAME),
    );
  });

  it("before an informer has synced, reads go to the apiserver", async () => {
    const { api, cluster } = setup();
    addPod(api, 0);
    const pods = await cluster.list({ apiVersion: "v1", kind: "Pod" }, NS, selectorLabels(NAME));
    expect(pods).toHaveLength(1);
    expect(api.calls.list).toBe(1);
    const missing = await cluster.get(
      { apiVersion: "batch/v1", kind: "CronJob", namespace: NS, name: "x" },
      { missingIsAbsent: true },
    );
    expect(missing).toBeUndefined();
    expect(api.calls.get).toBe(1);
    expect(cluster.reads).toMatchObject({ apiGets: 1, apiLists: 1 });
  });

  it("writes go through and their responses are cached (read-your-writes)", async () => {
    const { api, cache, cluster } = setup();
    const applied = await cluster.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: NS, labels: commonLabels(NAME) },
    });
    expect(cache.get("v1/ConfigMap", NS, "c")?.metadata?.resourceVersion).toBe(
      applied.metadata?.resourceVersion,
    );
    // The watch echo of that write carries the same version: nothing new.
    expect(cache.upsert("v1/ConfigMap", structuredClone(api.find("ConfigMap", NS, "c")!))).toBe(
      "unchanged",
    );
    await cluster.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: NS, name: "c" });
    expect(cache.get("v1/ConfigMap", NS, "c")).toBeUndefined();

    await cluster.patchStatus({ namespace: NS, name: NAME }, { phase: "Ready" });
    expect((cache.get(DATABASE_KIND, NS, NAME) as Database).status?.phase).toBe("Ready");
  });

  it("objects outside the informers' selector are never cached", async () => {
    const { cache, cluster } = setup();
    await cluster.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x", namespace: NS },
    });
    expect(cache.get("v1/ConfigMap", NS, "x")).toBeUndefined();
  });
});

function reads(api: FakeCluster) {
  return { get: api.calls.get, list: api.calls.list };
}
