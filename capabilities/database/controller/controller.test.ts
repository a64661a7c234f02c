import { Database } from "../api/database";
import { createController } from "./controller";
import { HaMemory } from "../ha/memory";
import { InstanceSql } from "../instance/types";
import { FakeClock } from "../../../test/unit/fake-clock";
import { DEFAULT_CONFIG } from "../lib/config";
import { FakeCluster } from "../../../test/unit/fake-cluster";

const NS = "team";
const NAME = "ledger";

function setup() {
  const cluster = new FakeCluster();
  const clock = new FakeClock(Date.parse("2026-11-29T10:00:00Z"));
  const config = { ...DEFAULT_CONFIG, backoffBaseMs: 1000, backoffCapMs: 8000, resyncSeconds: 60 };
  const ctl = createController(
    { cluster, config, now: () => new Date(clock.now()), validate: () => [] },
    { clock },
  );
  const db = cluster.addDatabase({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name: NAME, namespace: NS },
    spec: { version: "15", storage: { size: "1Gi" } },
  } as Database);
  const status = () => cluster.databases.get(`${NS}/${NAME}`)!.status;
  return { cluster, clock, ctl, db, status };
}

/** A Service with the `-rw` child's name that the Database does not own: reconcile must fail. */
const squatOnRwService = (cluster: FakeCluster): void =>
  cluster.put({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: `${NAME}-rw`, namespace: NS },
  });

afterEach(() => jest.restoreAllMocks());

describe("controller", () => {
  it("reconciles an enqueued Database until converged", async () => {
    const { cluster, clock, ctl, db } = setup();
    ctl.enqueue(db);
    await clock.advanceAsync(0);
    expect(cluster.find("StatefulSet", NS, NAME)).toBeDefined();
    await ctl.queue.shutdown();
  });

  it("records failures in status, backs off, and recovers once the cause is gone", async () => {
    const { cluster, clock, ctl, db, status } = setup();
    squatOnRwService(cluster);
    ctl.enqueue(db);
    await clock.advanceAsync(0);
    await clock.advanceAsync(0);
    expect(status()?.retry).toMatchObject({ attempts: 1 });
    expect(status()?.conditions?.find(c => c.type === "Reconciled")?.reason).toBe(
      "OwnershipConflict",
    );

    // Our own status write fires a watch event: it must not bypass the backoff (no hot loop).
    ctl.enqueue(cluster.databases.get(`${NS}/${NAME}`)!);
    await clock.advanceAsync(0);
    expect(status()?.retry?.attempts).toBe(1);

    await clock.advanceAsync(1000); // first retry after 1 s
    expect(status()?.retry?.attempts).toBe(2);
    await clock.advanceAsync(1999);
    expect(status()?.retry?.attempts).toBe(2); // second retry waits 2 s
    await clock.advanceAsync(1);
    expect(status()?.retry?.attempts).toBe(3);
    expect(cluster.events.filter(e => e.type === "Warning")).toHaveLength(1);

    cluster.objects.delete(`Service/${NS}/${NAME}-rw`);
    await clock.advanceAsync(4000);
    expect(status()?.retry).toBeUndefined();
    expect(status()?.conditions?.find(c => c.type === "Reconciled")?.status).toBe("True");
    await ctl.queue.shutdown();
  });

  it("retries at once when the user changes the spec during a backoff", async () => {
    const { cluster, clock, ctl, db, status } = setup();
    squatOnRwService(cluster);
    ctl.enqueue(db);
    await clock.advanceAsync(0);
    await clock.advanceAsync(1000);
    await clock.advanceAsync(2000); // now backing off for 4 s
    expect(status()?.retry?.attempts).toBe(3);
    cluster.objects.delete(`Service/${NS}/${NAME}-rw`);
    const stored = cluster.databases.get(`${NS}/${NAME}`)!;
    stored.metadata!.generation = 2;
    ctl.enqueue(stored);
    await clock.advanceAsync(0);
    expect(status()?.retry).toBeUndefined();
    expect(status()?.observedGeneration).toBe(2);
    await ctl.queue.shutdown();
  });

  it("drift check: re-reconciles known Databases every resync period", async () => {
    const { cluster, clock, ctl, db } = setup();
    ctl.enqueue(db);
    await clock.advanceAsync(0);
    cluster.objects.delete(`ConfigMap/${NS}/${NAME}-config`); // no watch on ConfigMaps
    await clock.advanceAsync(60_000);
    expect(cluster.find("ConfigMap", NS, `${NAME}-config`)).toBeDefined();
    await ctl.queue.shutdown();
  });

  it("stops quietly when the namespace is being deleted: no failure, no retry, no Warning", async () => {
    const { cluster, clock, ctl, db, status } = setup();
    cluster.failNext.set("apply", {
      status: 403,
      data: {
        kind: "Status",
        code: 403,
        reason: "Forbidden",
        message: "unable to create new content in namespace team because it is being terminated",
        details: { causes: [{ type: "NamespaceTerminating" }] },
      },
    });
    ctl.enqueue(db);
    await clock.advanceAsync(0);
    const applies = cluster.calls.apply;
    await clock.advanceAsync(60_000 - 1); // backoff would have retried several times by now
    expect(cluster.calls.apply).toBe(applies);
    expect(status()?.retry).toBeUndefined();
    expect(cluster.events.filter(e => e.type === "Warning")).toEqual([]);
    await ctl.queue.shutdown();
  });

  it("stops probing and forgets HA memory when leadership is lost", async () => {
    const cluster = new FakeCluster();
    const memory = new HaMemory();
    memory.of("team/ledger").failover.downSince = 1;
    const untrackAll = jest.fn();
    const ctl = createController({
      cluster,
      config: DEFAULT_CONFIG,
      now: () => new Date(),
      validate: () => [],
      instances: {
        sql: {} as InstanceSql,
        monitor: { track: () => undefined, view: () => new Map(), untrackAll },
      },
      ha: { failureThreshold: 3, memory },
    });
    ctl.stoppedLeading();
    expect(untrackAll).toHaveBeenCalledTimes(1);
    expect(memory.size).toBe(0);
    await ctl.queue.shutdown();
  });

  it("forgets a deleted Database", async () => {
    const { cluster, clock, ctl, db } = setup();
    ctl.enqueue(db);
    await clock.advanceAsync(0);
    cluster.databases.delete(`${NS}/${NAME}`);
    ctl.forget(db);
    const gets = cluster.calls.get;
    await clock.advanceAsync(120_000);
    expect(cluster.calls.get).toBe(gets);
    await ctl.queue.shutdown();
  });
});
