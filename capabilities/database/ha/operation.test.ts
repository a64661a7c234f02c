import { Database } from "../api/database";
import { withDefaults } from "../api/defaults";
import { ANNOTATION_SWITCHOVER, LABEL_ROLE, commonLabels } from "../api/names";
import { KubeObject } from "../cluster/cluster";
import { DatabaseWriter } from "../cluster/database-writer";
import { FakeCluster } from "../../../test/unit/fake-cluster";
import { Operation, OperationContext, runOperation, stoppedForGood } from "./operation";

const pod = (
  deletion: string | undefined,
  grace: number,
  finished: (string | undefined)[],
  phase = "Running",
) =>
  ({
    metadata: {
      name: "db-0",
      ...(deletion ? { deletionTimestamp: deletion, deletionGracePeriodSeconds: grace } : {}),
    },
    status: {
      phase,
      containerStatuses: finished.map(f =>
        f ? { state: { terminated: { finishedAt: f } } } : { state: { running: {} } },
      ),
    },
  }) as unknown as KubeObject;

describe("stoppedForGood: the old primary's pod cannot run postgres any more", () => {
  it.each<[string, KubeObject, boolean]>([
    ["not being deleted", pod(undefined, 0, ["2026-11-29T10:00:05Z"]), false],
    ["deleted, container still running", pod("2026-11-29T10:00:01Z", 1, [undefined]), false],
    [
      "deleted (1 s grace), container ended after the request",
      pod("2026-11-29T10:00:01Z", 1, ["2026-11-29T10:00:01Z"]),
      true,
    ],
    [
      "container ended before the request (a crash the kubelet may have restarted)",
      pod("2026-11-29T10:00:31Z", 30, ["2026-11-29T09:59:59Z"]),
      false,
    ],
    ["no container status yet", pod("2026-11-29T10:00:01Z", 1, []), false],
    [
      "deleted while crash-looping (its container waiting, ended before the request), phase Failed",
      pod("2026-11-29T10:00:01Z", 1, ["2026-11-29T09:59:59Z"], "Failed"),
      true,
    ],
    [
      "phase Succeeded (every container exited 0)",
      pod("2026-11-29T10:00:01Z", 1, [undefined], "Succeeded"),
      true,
    ],
    [
      "deleted while crash-looping, the kubelet not done yet (phase still Running)",
      pod("2026-11-29T10:00:01Z", 1, ["2026-11-29T09:59:59Z"], "Running"),
      false,
    ],
  ])("%s → %p", (_, p, expected) => {
    expect(stoppedForGood(p)).toBe(expected);
  });
});

// --- the state machine alone, against the in-memory API -------------------------------------

const NS = "prod";
const NAME = "orders";
const T0 = Date.parse("2026-11-29T10:00:00Z");

type Target = Awaited<ReturnType<NonNullable<OperationContext["failoverTarget"]>>>;

function machine(
  operation: Partial<Operation> = {},
  target?: () => Target,
  failover: Record<string, unknown> = {},
) {
  const api = new FakeCluster();
  const sql: string[] = [];
  const startedAt = new Date(T0).toISOString();
  const op: Operation = {
    type: "Failover",
    from: `${NAME}-0`,
    to: `${NAME}-1`,
    reason: "the primary stopped answering",
    step: "Fencing",
    startedAt,
    ...operation,
  };
  api.addDatabase({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name: NAME, namespace: NS, annotations: { [ANNOTATION_SWITCHOVER]: `${NAME}-1` } },
    spec: { version: "15", storage: { size: "1Gi" }, instances: 2, failover },
    status: { phase: "FailingOver", currentPrimary: `${NAME}-0`, operation: op },
  } as Database);
  const addPod = (n: number, uid: string, extra: Record<string, unknown> = {}) =>
    api.put({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `${NAME}-${n}`,
        namespace: NS,
        uid,
        labels: { ...commonLabels(NAME), [LABEL_ROLE]: n === 0 ? "primary" : "replica" },
        ...extra,
      },
      status: { podIP: `10.0.0.${n + 1}` },
    });
  addPod(0, "uid-0");
  addPod(1, "uid-1");
  let now = T0;
  /** One pass: what the operator reads now, and the operation stored in status. */
  const pass = async () => {
    const db = (await api.getDatabase(NS, NAME))!;
    const pods = await api.list({ apiVersion: "v1", kind: "Pod" }, NS, {});
    const ctx: OperationContext = {
      cluster: api,
      sql: {
        promote: async t => void sql.push(`promote ${t.host}`),
        checkpoint: async t => void sql.push(`checkpoint ${t.host}`),
      },
      db,
      input: { db, spec: withDefaults(db.spec!, v => `postgres:${v}`) },
      pods,
      target: ip => ({ host: ip, port: 5432, password: "pw" }),
      now: () => new Date(now),
      applyChild: async child => void (await api.apply(child)),
      writer: new DatabaseWriter(api, db),
      ...(target ? { failoverTarget: async () => target() } : {}),
    };
    return runOperation(ctx, db.status!.operation!);
  };
  const stored = () => api.databases.get(`${NS}/${NAME}`)!;
  return { api, sql, pass, stored, addPod, advance: (ms: number) => (now += ms) };
}

describe("runOperation: the failover state machine on its own", () => {
  it("stores the fenced pod's UID before it deletes that pod", async () => {
    const m = machine();
    const result = await m.pass();
    expect(result.done).toBe(false);
    expect(m.stored().status?.operation).toMatchObject({ step: "Fencing", fencedPodUid: "uid-0" });
    expect(m.api.deletions).toEqual([{ ref: `Pod/${NS}/${NAME}-0`, gracePeriodSeconds: 1 }]);
    expect(m.api.find("ConfigMap", NS, `${NAME}-topology`)?.data).toEqual({ primary: `${NAME}-1` });
  });

  it("never deletes the old primary's replacement, and promotes once it is there", async () => {
    const m = machine();
    await m.pass();
    m.addPod(0, "uid-0-successor"); // the StatefulSet recreated the pod: fenced
    const result = await m.pass();
    expect(result.done).toBe(true);
    expect(m.api.deletions).toHaveLength(1);
    expect(m.api.find("Pod", NS, `${NAME}-0`)?.metadata?.uid).toBe("uid-0-successor");
    expect(m.sql).toEqual(["promote 10.0.0.2"]);
    expect(m.stored().status).toMatchObject({
      currentPrimary: `${NAME}-1`,
      targetPrimary: `${NAME}-1`,
      lastFailover: { from: `${NAME}-0`, to: `${NAME}-1` },
    });
    expect(m.stored().status?.operation).toBeUndefined();
  });

  it("deletes the recorded pod again when the operator stopped between record and delete", async () => {
    const m = machine({ fencedPodUid: "uid-0" }); // recorded, but the pod still runs
    expect((await m.pass()).done).toBe(false);
    expect(m.api.deletions).toEqual([{ ref: `Pod/${NS}/${NAME}-0`, gracePeriodSeconds: 1 }]);
  });

  it("deletes nothing when the record cannot be written (a stale view)", async () => {
    const m = machine();
    m.api.failNext.set("patchStatus", { status: 409, data: { reason: "Conflict" } });
    await expect(m.pass()).rejects.toMatchObject({ status: 409 });
    expect(m.api.deletions).toEqual([]);
  });

  it("a requested switchover ends by removing its annotation", async () => {
    const m = machine({ type: "Switchover", reason: "Requested", requested: true });
    await m.pass();
    m.addPod(0, "uid-0-successor");
    expect((await m.pass()).done).toBe(true);
    expect(m.sql).toEqual(["checkpoint 10.0.0.1", "promote 10.0.0.2"]);
    expect(m.stored().metadata?.annotations?.[ANNOTATION_SWITCHOVER]).toBeUndefined();
    expect(m.stored().status?.lastSwitchover).toMatchObject({ to: `${NAME}-1` });
  });
});

describe("runOperation: a failover that can promote nobody after the fence", () => {
  const refused: Target = { refused: "only 0 of the synchronous standbys answer" };
  const topologyPrimary = (m: ReturnType<typeof machine>) =>
    (m.api.find("ConfigMap", NS, `${NAME}-topology`)?.data as Record<string, string>).primary;

  it.each<[string, (m: ReturnType<typeof machine>) => void]>([
    ["while the old primary's pod is still gone", m => m.advance(60_000)],
    [
      "while the old primary is back, but only just (standbys may be slow to answer)",
      m => {
        m.addPod(0, "uid-0-successor");
        m.advance(5_000);
      },
    ],
  ])("waits %s", async (_, arrange) => {
    const m = machine({}, () => refused);
    await m.pass(); // fence: records and deletes uid-0
    arrange(m);
    const result = await m.pass();
    expect(result).toMatchObject({ done: false });
    expect(m.stored().status?.operation).toMatchObject({ step: "Fencing", to: `${NAME}-1` });
    expect(topologyPrimary(m)).toBe(`${NAME}-1`);
    expect(m.sql).toEqual([]);
  });

  it("gives the old primary its role back once its pod is back: nobody was promoted", async () => {
    const m = machine({}, () => refused);
    await m.pass();
    m.addPod(0, "uid-0-successor"); // the StatefulSet recreated it; its entrypoint waits
    m.advance(15_000);
    const result = await m.pass();
    expect(result).toEqual({ done: true, primary: `${NAME}-0` });
    expect(m.sql).toEqual([]); // no promotion, anywhere
    expect(topologyPrimary(m)).toBe(`${NAME}-0`);
    expect(m.stored().status).toMatchObject({
      phase: "Degraded",
      currentPrimary: `${NAME}-0`,
      targetPrimary: `${NAME}-0`,
    });
    expect(m.stored().status?.operation).toBeUndefined();
    expect(m.api.events.map(e => e.reason)).toContain("FailoverCancelled");
    expect(m.api.deletions).toHaveLength(1); // the successor is never deleted
  });

  it("promotes the target when standbys answer, even with the old primary back", async () => {
    const m = machine({}, () => ({ to: `${NAME}-1` }));
    await m.pass();
    m.addPod(0, "uid-0-successor");
    m.advance(15_000);
    expect(await m.pass()).toEqual({ done: true, primary: `${NAME}-1` });
    expect(m.sql).toEqual(["promote 10.0.0.2"]);
  });
});

describe("runOperation: the old primary's pod outlives its deletion (node lost)", () => {
  /** The first pass deletes the pod; its node never confirms, so the pod stays, terminating. */
  async function stuck(failover: Record<string, unknown> = {}) {
    const m = machine({}, undefined, failover);
    await m.pass();
    m.addPod(0, "uid-0", { deletionTimestamp: new Date(T0).toISOString() });
    m.advance(61_000);
    return m;
  }
  const reasons = (m: ReturnType<typeof machine>) => m.api.events.map(e => e.reason);

  it("waits by default, promoting nobody, and says how to go on", async () => {
    const m = await stuck();
    expect((await m.pass()).done).toBe(false);
    expect(m.sql).toEqual([]);
    expect(reasons(m)).toContain("FenceTimeout");
    expect(m.api.events.find(e => e.reason === "FenceTimeout")?.message).toMatch(
      /not promoting .* --force --grace-period=0/,
    );
    expect(m.stored().status?.operation).toMatchObject({ step: "Fencing" });
  });

  it("goes on once the pod is force-deleted and replaced", async () => {
    const m = await stuck();
    await m.pass();
    m.addPod(0, "uid-0-successor");
    expect(await m.pass()).toEqual({ done: true, primary: `${NAME}-1` });
    expect(m.sql).toEqual(["promote 10.0.0.2"]);
  });

  it("promotes at once when the spec opts in", async () => {
    const m = await stuck({ promoteAfterFenceTimeout: true });
    expect(await m.pass()).toEqual({ done: true, primary: `${NAME}-1` });
    expect(m.sql).toEqual(["promote 10.0.0.2"]);
    expect(m.api.events.find(e => e.reason === "FenceTimeout")?.message).toContain(
      "promoting orders-1 anyway",
    );
  });
});
