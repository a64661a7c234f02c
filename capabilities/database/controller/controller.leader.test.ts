/**
 * The controller under leader election and event filtering, on a fake clock and the in-memory
 * API: only the leader reconciles; a standby keeps its keys and takes them all on becoming
 * leader; our own writes' echoes trigger nothing.
 */
import { Registry } from "prom-client";
import { Database } from "../api/database";
import { commonLabels, selectorLabels } from "../api/names";
import { CHILD_KINDS, DATABASE_KIND, kindKeyOf } from "../api/kinds";
import { CachedCluster } from "../cache/cached-cluster";
import { isManaged } from "../cache/informers";
import { ObjectCache } from "../cache/object-cache";
import { createController } from "./controller";
import { FakeClock } from "../../../test/unit/fake-clock";
import { DEFAULT_CONFIG } from "../lib/config";
import { OperatorMetrics } from "../metrics/metrics";
import { KubeObject } from "../cluster/cluster";
import { FakeCluster } from "../../../test/unit/fake-cluster";

const NS = "team";

function setup(leading = true) {
  const api = new FakeCluster();
  const cache = new ObjectCache();
  for (const kind of CHILD_KINDS) cache.markSynced(kindKeyOf(kind)); // informers have listed
  const clock = new FakeClock(Date.parse("2026-11-29T10:00:00Z"));
  const registry = new Registry();
  const metrics = new OperatorMetrics(registry);
  const leader = { now: leading };
  const config = { ...DEFAULT_CONFIG, backoffBaseMs: 1000, backoffCapMs: 8000, resyncSeconds: 60 };
  const ctl = createController(
    {
      cluster: new CachedCluster(api, cache, isManaged),
      config,
      now: () => new Date(clock.now()),
      validate: () => [],
    },
    { isLeader: () => leader.now, metrics, cache, clock },
  );
  /** Stores a Database and returns the watch event's copy (never the fake's own object). */
  const add = (name: string) =>
    structuredClone(
      api.addDatabase({
        apiVersion: "pgkeeper.dev/v1alpha1",
        kind: "Database",
        metadata: { name, namespace: NS },
        spec: { version: "15", storage: { size: "1Gi" } },
      } as Database),
    );
  /** The watch event Pepr would deliver for the stored Database now. */
  const dbEvent = (name: string) => structuredClone(api.databases.get(`${NS}/${name}`)!);
  const settle = () => clock.advanceAsync(0);
  const count = async (series: string) => {
    const line = (await registry.metrics()).split("\n").find(l => l.startsWith(`${series} `));
    return line ? Number(line.split(" ")[1]) : 0;
  };
  /** Reconciles run, whatever their result. */
  const reconciles = async () => {
    const results = ["success", "requeue", "error"];
    const counts = await Promise.all(
      results.map(r => count(`pgkeeper_reconcile_duration_seconds_count{result="${r}"}`)),
    );
    return counts.reduce((a, b) => a + b, 0);
  };
  return { api, cache, clock, ctl, leader, add, dbEvent, settle, registry, reconciles, count };
}

afterEach(() => jest.restoreAllMocks());

describe("controller with leader election", () => {
  it("a standby keeps the keys but reconciles nothing, then takes every known Database on becoming leader", async () => {
    const { api, ctl, leader, add, settle, reconciles } = setup(false);
    ctl.enqueue(add("a"));
    ctl.enqueue(add("b"));
    await settle();
    expect(api.mutatingCalls).toBe(0);
    expect(api.calls.event).toBe(0);
    expect(await reconciles()).toBe(0);

    leader.now = true;
    ctl.startedLeading();
    await settle();
    expect(api.find("StatefulSet", NS, "a")).toBeDefined();
    expect(api.find("StatefulSet", NS, "b")).toBeDefined();
    await ctl.queue.shutdown();
  });

  it("wake (an instance's SQL state changed) reconciles a known Database without touching the cache", async () => {
    const { api, cache, ctl, add, settle, reconciles } = setup();
    ctl.enqueue(add("a"));
    await settle();
    const before = await reconciles();
    const cached = structuredClone(cache.get(DATABASE_KIND, NS, "a"));
    ctl.wake(NS, "a");
    ctl.wake(NS, "unknown");
    await settle();
    expect(await reconciles()).toBe(before + 1);
    expect(cache.get(DATABASE_KIND, NS, "a")).toEqual(cached);
    expect(api.calls.event).toBe(api.events.length);
    expect(api.events.map(e => e.reason)).not.toContain("InvalidSpec");
    await ctl.queue.shutdown();
  });

  it("after losing leadership: queued keys do nothing, resync adds nothing, writes are refused", async () => {
    const { api, clock, ctl, leader, add, settle } = setup();
    ctl.enqueue(add("a"));
    await settle();
    const writes = api.mutatingCalls + api.calls.event;
    leader.now = false;
    ctl.stoppedLeading();
    ctl.enqueue({ metadata: { namespace: NS, name: "a", generation: 2 } });
    api.objects.delete(`ConfigMap/${NS}/a-config`);
    await clock.advanceAsync(120_000); // two resync periods
    expect(api.mutatingCalls + api.calls.event).toBe(writes);
    expect(api.find("ConfigMap", NS, "a-config")).toBeUndefined();
    await ctl.queue.shutdown();
  });

  it("a reconcile that loses leadership midway cannot write on (fenced)", async () => {
    const { api, ctl, leader, add, settle } = setup();
    let creates = 0;
    const create = api.create.bind(api);
    jest.spyOn(api, "create").mockImplementation(async obj => {
      if (++creates === 2) leader.now = false; // lease lost while the reconcile is running
      return create(obj);
    });
    ctl.enqueue(add("a"));
    await settle();
    expect(api.calls.create).toBe(2);
    expect(api.calls.patchStatus).toBe(0);
    await ctl.queue.shutdown();
  });
});

describe("controller event filtering", () => {
  it("the echo of our own status write does not trigger a reconcile; a spec change does", async () => {
    const { api, ctl, add, dbEvent, settle, reconciles } = setup();
    ctl.enqueue(add("a"));
    await settle();
    const after = await reconciles();
    expect(api.databases.get(`${NS}/a`)?.status?.observedGeneration).toBe(1);

    ctl.enqueue(dbEvent("a")); // MODIFIED: our status patch coming back
    await settle();
    expect(await reconciles()).toBe(after);

    const stored = api.databases.get(`${NS}/a`)!;
    stored.spec = { ...stored.spec!, instances: 2 };
    stored.metadata = { ...stored.metadata, generation: 2, resourceVersion: "999" };
    ctl.enqueue(dbEvent("a"));
    await settle();
    expect(await reconciles()).toBe(after + 1);
    await ctl.queue.shutdown();
  });

  it("a status-only change made by someone else does not trigger one either (resync covers it)", async () => {
    const { ctl, add, dbEvent, settle, reconciles } = setup();
    ctl.enqueue(add("a"));
    await settle();
    const after = await reconciles();
    const event = dbEvent("a");
    event.status = { ...event.status, phase: "Failed" };
    event.metadata = { ...event.metadata, resourceVersion: "1000" };
    ctl.enqueue(event);
    await settle();
    expect(await reconciles()).toBe(after);
    await ctl.queue.shutdown();
  });

  it("child events: a deleted child or a pod change reconciles its Database; a status-only StatefulSet change and unknown owners do not", async () => {
    const { api, cache, ctl, add, settle, reconciles } = setup();
    ctl.enqueue(add("a"));
    await settle();
    const base = await reconciles();
    const sts = structuredClone(cache.get("apps/v1/StatefulSet", NS, "a")!);

    const statusOnly: KubeObject = {
      ...sts,
      status: { readyReplicas: 1 },
      metadata: { ...sts.metadata, resourceVersion: "2000" },
    };
    const prev = cache.get("apps/v1/StatefulSet", NS, "a");
    cache.upsert("apps/v1/StatefulSet", statusOnly);
    ctl.onChildEvent("MODIFIED", statusOnly, "changed", prev);
    await settle();
    expect(await reconciles()).toBe(base);

    const pod: KubeObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "a-0", namespace: NS, labels: commonLabels("a"), resourceVersion: "2001" },
    };
    ctl.onChildEvent("ADDED", pod, "added", undefined);
    await settle();
    expect(await reconciles()).toBe(base + 1);

    ctl.onChildEvent("DELETED", sts, "removed", sts);
    await settle();
    expect(await reconciles()).toBe(base + 2);

    const stranger: KubeObject = {
      ...pod,
      metadata: { ...pod.metadata, labels: commonLabels("unknown") },
    };
    ctl.onChildEvent("ADDED", stranger, "added", undefined);
    await settle();
    expect(await reconciles()).toBe(base + 2);
    expect(api.calls.get).toBe(0); // a new Database's children are created, never read first
    await ctl.queue.shutdown();
  });

  it("a Backup or backup Job of an unknown Database is reconciled (to say so, or record the Job's end); its Pod is not", async () => {
    const { ctl, settle, reconciles } = setup();
    const base = await reconciles();
    const backup: KubeObject = {
      apiVersion: "pgkeeper.dev/v1alpha1",
      kind: "Backup",
      metadata: { name: "nightly", namespace: NS, resourceVersion: "3000" },
      spec: { database: "nowhere" },
    };
    ctl.onChildEvent("ADDED", backup, "added", undefined);
    await settle();
    expect(await reconciles()).toBe(base + 1);
    const labels = commonLabels("deleted");
    const job: KubeObject = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "nightly", namespace: NS, labels, resourceVersion: "3001" },
    };
    ctl.onChildEvent("ADDED", job, "added", undefined);
    await settle();
    expect(await reconciles()).toBe(base + 2);
    const pod: KubeObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "nightly-x", namespace: NS, labels, resourceVersion: "3002" },
    };
    ctl.onChildEvent("ADDED", pod, "added", undefined);
    await settle();
    expect(await reconciles()).toBe(base + 2);
    await ctl.queue.shutdown();
  });

  it("exports per-instance health from the status it wrote, and forgets it with the Database", async () => {
    const { api, cache, ctl, add, settle, registry } = setup();
    api.put({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "a-0",
        namespace: NS,
        labels: { ...commonLabels("a"), ...selectorLabels("a") },
      },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    });
    cache.upsert("v1/Pod", structuredClone(api.find("Pod", NS, "a-0")!)); // the informer saw it
    ctl.enqueue(add("a"));
    await settle();
    expect(await registry.metrics()).toContain(
      'pgkeeper_instance_ready{namespace="team",database="a",instance="a-0"} 1',
    );
    ctl.forget({ metadata: { namespace: NS, name: "a" } });
    expect(await registry.metrics()).not.toContain('database="a"');
    await ctl.queue.shutdown();
  });

  it("counts errors by reason and the retries they cause", async () => {
    const { api, clock, ctl, add, settle, count } = setup();
    api.put({ apiVersion: "v1", kind: "Service", metadata: { name: "a-rw", namespace: NS } });
    ctl.enqueue(add("a"));
    await settle();
    await clock.advanceAsync(1000);
    expect(await count('pgkeeper_reconcile_errors_total{reason="OwnershipConflict"}')).toBe(2);
    expect(await count("pgkeeper_reconcile_retries_total")).toBe(2);
    expect(await count('pgkeeper_reconcile_duration_seconds_count{result="error"}')).toBe(2);
    await ctl.queue.shutdown();
  });

  it("a bare key (a reconcile asked for by other code) runs once and leaves the cache alone", async () => {
    const { cache, ctl, add, settle, reconciles } = setup();
    ctl.enqueue(add("a"));
    await settle();
    const cached = cache.get(DATABASE_KIND, NS, "a");
    const before = await reconciles();
    ctl.enqueue({ metadata: { namespace: NS, name: "a" } });
    await settle();
    expect(await reconciles()).toBe(before + 1);
    expect(cache.get(DATABASE_KIND, NS, "a")).toBe(cached);
    await ctl.queue.shutdown();
  });

  it("the Database cache is what reconcile reads: no GET once the watch delivered it", async () => {
    const { api, cache, ctl, add, dbEvent, settle } = setup();
    const db = add("a");
    ctl.enqueue(db);
    await settle();
    expect(cache.get(DATABASE_KIND, NS, "a")).toBeDefined();
    const gets = api.calls.get;
    const stored = api.databases.get(`${NS}/a`)!;
    stored.metadata = { ...stored.metadata, labels: { team: "x" }, resourceVersion: "3000" };
    ctl.enqueue(dbEvent("a"));
    await settle();
    expect(api.calls.get).toBe(gets);
    await ctl.queue.shutdown();
  });
});
