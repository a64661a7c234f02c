/**
 * The HA step inside reconcile, against the in-memory cluster and a scripted SQL stand-in: the
 * order of failover and switchover steps, what is recorded before each, and resumption.
 * Real PostgreSQL behaviour is covered in test/postgres and test/e2e.
 */
import { Database } from "../api/database";
import { DatabaseSpec } from "../api/database-schema";
import { ANNOTATION_SWITCHOVER, LABEL_ROLE, commonLabels, selectorLabels } from "../api/names";
import { DEFAULT_CONFIG } from "../lib/config";
import { ReconcileDeps, reconcile } from "../reconcile/reconcile";
import { FakeCluster } from "../../../test/unit/fake-cluster";
import { fenced, forgetDatabase } from "../reconcile/deps";
import { PasswordMemory } from "../reconcile/password-memory";
import { NotLeaderError } from "../lib/fence";
import { passwordFingerprint } from "../lib/scram";
import { HaMemory } from "./memory";
import { ProbeRecord } from "../instance/monitor";
import { InstanceProbe, InstanceSql, InstanceTarget } from "../instance/types";

const NS = "prod";
const NAME = "orders";

const answer = (over: Partial<InstanceProbe> = {}): InstanceProbe => ({
  inRecovery: true,
  timeline: 1,
  lsn: "0/3000000",
  walReceiverStatus: "streaming",
  postmasterStartTime: "t0",
  pendingRestart: [],
  standbys: [],
  ...over,
});

function setup(spec: Partial<DatabaseSpec> = {}) {
  const cluster = new FakeCluster();
  const memory = new HaMemory();
  const records = new Map<string, ProbeRecord>();
  const sqlCalls: string[] = [];
  const fresh = new Map<string, { ok: boolean; probe?: InstanceProbe }>();
  const unpromotable = new Set<string>();
  /** Per instance: positions its next probes report, one each (a standby replaying its WAL). */
  const replaying = new Map<string, string[]>();
  /** The primary each instance was last told to follow (in primary_conninfo), by address. */
  const following = new Map<string, string>();
  let leader = true;
  const ip = (n: number) => `10.0.0.${n + 1}`;
  let parametersFail: Error | undefined;
  let parametersHeldBack: string | undefined;
  let repairFail: Error | undefined;
  let passwordFail: Error | undefined;
  /** Passwords PostgreSQL accepts at a log-in check. */
  const accepted = new Set<string>();
  let pendingAfterApply: string[] = [];
  const sql: InstanceSql = {
    // A probe taken now: what the monitor saw last, unless a test says the instance moved on.
    probeInstance: async (t: InstanceTarget) => {
      const name = `${NAME}-${Number(t.host.split(".")[3]) - 1}`;
      const next = replaying.get(name)?.shift();
      if (next) return answer({ lsn: next });
      const now = fresh.get(name) ?? records.get(name);
      if (!now?.ok || !now.probe) throw new Error(`${name} does not answer`);
      return now.probe;
    },
    promote: async (t: InstanceTarget) => {
      sqlCalls.push(`promote ${t.host}`);
      if (unpromotable.has(t.host))
        throw new Error(`promote on ${t.host}:5432: connection refused`);
    },
    checkpoint: async (t: InstanceTarget) => void sqlCalls.push(`checkpoint ${t.host}`),
    setRolePassword: async (t: InstanceTarget, role: string, verifier: string) => {
      sqlCalls.push(`password ${role} as ${t.user} ${t.password} on ${t.host}`);
      if (!verifier.startsWith("SCRAM-SHA-256$4096:")) throw new Error("not a verifier");
      if (passwordFail) throw passwordFail;
    },
    acceptsPassword: async (t: InstanceTarget) => {
      sqlCalls.push(`log in ${t.user} ${t.password} on ${t.host}`);
      return accepted.has(t.password);
    },
    writePassfile: async (t: InstanceTarget) => {
      sqlCalls.push(`passfile ${t.password} on ${t.host}`);
      return true;
    },
    reloadConfiguration: async (t: InstanceTarget) => void sqlCalls.push(`reload ${t.host}`),
    ensureRoles: async (t: InstanceTarget) =>
      void sqlCalls.push(`roles on ${t.host} as ${t.user ?? "postgres"}`),
    requestRepair: async (t: InstanceTarget) => {
      sqlCalls.push(`repair ${t.host}`);
      if (repairFail) throw repairFail;
    },
    applyParameters: async (t: InstanceTarget, desired: Record<string, string>) => {
      sqlCalls.push(`parameters ${t.host}`);
      following.set(
        t.host,
        /fallback_application_name=(\S+)/.exec(desired.primary_conninfo ?? "")?.[1] ?? "",
      );
      if (parametersFail) throw parametersFail;
      return {
        changed: pendingAfterApply.length > 0,
        pendingRestart: pendingAfterApply,
        notApplied: [],
        ...(parametersHeldBack ? { heldBack: parametersHeldBack } : {}),
      };
    },
  };
  // Fenced by leadership as the controller fences them: no step checks it itself.
  const deps: ReconcileDeps = fenced(
    {
      cluster,
      config: DEFAULT_CONFIG,
      now: () => new Date("2026-11-29T10:00:00Z"),
      validate: () => [],
      newPassword: () => "pw",
      instances: { sql, monitor: { track: () => undefined, view: () => new Map(records) } },
      ha: { failureThreshold: 3, settleMs: 0, memory },
      passwords: new PasswordMemory(),
    },
    () => leader,
  );
  cluster.addDatabase({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name: NAME, namespace: NS },
    spec: { version: "15", storage: { size: "1Gi" }, instances: 3, ...spec },
    status: { phase: "Ready", currentPrimary: `${NAME}-0`, targetPrimary: `${NAME}-0` },
  } as Database);
  const stored = () => cluster.databases.get(`${NS}/${NAME}`)!;
  const addPod = (n: number, uid = `uid-${n}`) => {
    cluster.put({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `${NAME}-${n}`,
        namespace: NS,
        uid,
        labels: {
          ...commonLabels(NAME),
          ...selectorLabels(NAME),
          [LABEL_ROLE]: n === 0 ? "primary" : "replica",
        },
      },
      status: { podIP: ip(n), conditions: [{ type: "Ready", status: "True" }] },
    });
  };
  const probe = (
    n: number,
    rec: Partial<ProbeRecord> & { probe?: InstanceProbe },
    uid = `uid-${n}`,
  ) => records.set(`${NAME}-${n}`, { uid, ok: true, failures: 0, ...rec });
  [0, 1, 2].forEach(n => addPod(n));
  probe(0, { probe: answer({ inRecovery: false, walReceiverStatus: undefined }) });
  probe(1, { probe: answer({ lsn: "0/3000000" }) });
  probe(2, { probe: answer({ lsn: "0/3000100" }) });
  const run = () => reconcile(deps, NS, NAME);
  const pod = (n: number) => cluster.find("Pod", NS, `${NAME}-${n}`);
  return {
    cluster,
    deps,
    memory,
    stored,
    run,
    pod,
    addPod,
    probe,
    /** What the monitor has seen, by instance name. */
    records,
    sqlCalls,
    following,
    unpromotable,
    replaying,
    /** What instance n answers to a probe taken now (the monitor's view stays as it was). */
    answersNow: (n: number, now: { ok: boolean; probe?: InstanceProbe }) =>
      fresh.set(`${NAME}-${n}`, now),
    ip,
    setLeader: (v: boolean) => (leader = v),
    failParameters: (err: Error | undefined) => (parametersFail = err),
    holdBackParameters: (why: string | undefined) => (parametersHeldBack = why),
    failRepair: (err: Error | undefined) => (repairFail = err),
    failPassword: (err: Error | undefined) => (passwordFail = err),
    accepted,
    leavePending: (names: string[]) => (pendingAfterApply = names),
  };
}

describe("failover", () => {
  it("fences the failed primary first, then promotes the most advanced replica", async () => {
    const t = setup();
    t.probe(0, { ok: false, failures: 3 });
    await t.run();
    // Fencing: recorded, topology names the target, label off, pod deleted with a short grace.
    expect(t.stored().status?.operation).toMatchObject({
      type: "Failover",
      step: "Fencing",
      from: "orders-0",
      to: "orders-2",
      fencedPodUid: "uid-0",
    });
    expect(t.stored().status?.phase).toBe("FailingOver");
    expect(t.cluster.find("ConfigMap", NS, "orders-topology")?.data).toEqual({
      primary: "orders-2",
    });
    expect(t.cluster.deletions).toContainEqual({
      ref: `Pod/${NS}/orders-0`,
      gracePeriodSeconds: 1,
    });
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([]);

    // The StatefulSet recreates the pod (new UID): fenced, so promote.
    t.addPod(0, "uid-0b");
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([`promote ${t.ip(2)}`]);
    expect(t.stored().status).toMatchObject({
      currentPrimary: "orders-2",
      targetPrimary: "orders-2",
      lastFailover: { from: "orders-0", to: "orders-2" },
    });
    expect(t.stored().status?.operation).toBeUndefined();
    expect(t.pod(2)?.metadata?.labels?.[LABEL_ROLE]).toBe("primary");
    expect(t.cluster.events.map(e => e.reason)).toEqual(
      expect.arrayContaining(["FailoverStarted", "FailoverCompleted"]),
    );
  });

  /** Instance 0's pod with its postgres container status as the kubelet reports it. */
  const withPostgresStatus = (t: ReturnType<typeof setup>, postgres: Record<string, unknown>) => {
    const pod = t.pod(0)!;
    t.cluster.put({
      ...pod,
      status: {
        ...(pod.status as object),
        containerStatuses: [{ name: "postgres", ...postgres }],
      },
    });
  };

  it("fails over at once from the Pod watch when the primary's postgres is in CrashLoopBackOff", async () => {
    const t = setup();
    // Its last probe still answered: only the kubelet knows yet.
    withPostgresStatus(t, { restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff" } } });
    await t.run();
    expect(t.stored().status?.operation).toMatchObject({
      type: "Failover",
      step: "Fencing",
      from: "orders-0",
      reason: "the primary's postgres container orders-0 is in CrashLoopBackOff",
    });
  });

  it("leaves a primary the kubelet restarted in place 1 s ago to its crash recovery", async () => {
    const t = setup();
    t.probe(0, { ok: false, failures: 3 });
    withPostgresStatus(t, {
      restartCount: 1,
      state: { running: { startedAt: "2026-11-29T09:59:59Z" } },
    });
    await t.run();
    expect(t.stored().status?.operation).toBeUndefined();
    expect(t.cluster.deletions).toEqual([]);
  });

  it("points every answering standby at the new primary in the pass that promoted it", async () => {
    const t = setup();
    await t.run(); // steady: everyone follows orders-0
    expect(t.following.get(t.ip(1))).toBe("orders-0");
    t.probe(0, { ok: false, failures: 3 });
    await t.run(); // fencing
    t.addPod(0, "uid-0b");
    t.sqlCalls.length = 0;
    await t.run(); // promotion
    expect(t.sqlCalls).toEqual([
      `promote ${t.ip(2)}`,
      `parameters ${t.ip(1)}`,
      `parameters ${t.ip(2)}`,
    ]);
    expect(t.following.get(t.ip(1))).toBe("orders-2");
  });

  it("chooses again once the primary is fenced: the standby that received the most WAL", async () => {
    const t = setup();
    t.probe(0, { ok: false, failures: 3 });
    await t.run();
    expect(t.stored().status?.operation).toMatchObject({ step: "Fencing", to: "orders-2" });
    // A commit acknowledged by orders-1 alone after the probes the decision used.
    t.answersNow(1, { ok: true, probe: answer({ lsn: "0/3000200" }) });
    t.addPod(0, "uid-0b");
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([`promote ${t.ip(1)}`]);
    expect(t.stored().status).toMatchObject({
      currentPrimary: "orders-1",
      lastFailover: { from: "orders-0", to: "orders-1" },
    });
    expect(t.cluster.find("ConfigMap", NS, "orders-topology")?.data).toMatchObject({
      primary: "orders-1",
    });
    expect(t.cluster.events.find(e => e.reason === "FailoverRetargeted")?.message).toBe(
      "orders-1 received more WAL than orders-2 before orders-0 was fenced; promoting orders-1",
    );
  });

  it("waits while a standby's position still moves after the fence (replaying WAL it has)", async () => {
    const t = setup();
    t.probe(0, { ok: false, failures: 3 });
    await t.run(); // fencing, target orders-2 (0/3000100)
    // orders-1 just restarted: it replays its own WAL, past what orders-2 has.
    t.replaying.set("orders-1", ["0/3000000", "0/3000080"]);
    t.addPod(0, "uid-0b");
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([]);
    expect(t.cluster.events.find(e => e.reason === "FailoverWaiting")?.message).toContain(
      "orders-1 still replaying WAL (positions not settled)",
    );
    // Settled further than orders-2: orders-1 is promoted.
    t.answersNow(1, { ok: true, probe: answer({ lsn: "0/3000200" }) });
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([`promote ${t.ip(1)}`]);
  });

  it("keeps the target chosen before on a tie", async () => {
    const t = setup();
    t.probe(0, { ok: false, failures: 3 });
    await t.run();
    t.answersNow(1, { ok: true, probe: answer({ lsn: "0/3000100" }) });
    t.addPod(0, "uid-0b");
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([`promote ${t.ip(2)}`]);
    expect(t.cluster.events.map(e => e.reason)).not.toContain("FailoverRetargeted");
  });

  it("in quorum mode, promotes no one while too few synchronous standbys answer after the fence", async () => {
    const t = setup({ postgresql: { synchronous: { mode: "quorum", number: 1 } } });
    t.stored().status = { ...t.stored().status, synchronousStandbys: ["orders-1", "orders-2"] };
    t.probe(0, { ok: false, failures: 3 });
    await t.run();
    expect(t.stored().status?.operation).toMatchObject({ step: "Fencing", to: "orders-2" });
    // orders-1 may hold a commit orders-2 lacks, and it stopped answering.
    t.answersNow(1, { ok: false });
    t.addPod(0, "uid-0b");
    await t.run();
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([]);
    expect(t.stored().status?.operation).toMatchObject({ step: "Fencing" });
    const waiting = t.cluster.events.filter(e => e.reason === "FailoverWaiting");
    expect(waiting).toHaveLength(1);
    expect(waiting[0].message).toContain("2 are needed");
    // It answers again: the most advanced of the two is promoted.
    t.answersNow(1, { ok: true, probe: answer({ lsn: "0/3000000" }) });
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([`promote ${t.ip(2)}`]);
  });

  it("abandons a target that cannot be promoted for a minute, then chooses again", async () => {
    const t = setup();
    t.probe(0, { ok: false, failures: 3 });
    await t.run(); // fencing, target orders-2
    t.addPod(0, "uid-0b");
    t.unpromotable.add(t.ip(2));
    await expect(t.run()).rejects.toThrow("connection refused"); // retried with backoff
    expect(t.stored().status?.operation).toMatchObject({ step: "Promoting", to: "orders-2" });
    // orders-2 died for good.
    t.probe(2, { ok: false, failures: 60 });
    t.answersNow(2, { ok: false });
    t.deps.now = () => new Date("2026-11-29T10:01:01Z");
    await t.run();
    expect(t.stored().status?.operation).toBeUndefined();
    expect(t.stored().status?.phase).toBe("Degraded");
    expect(t.cluster.events.find(e => e.reason === "FailoverTargetLost")?.message).toBe(
      "promoting orders-2 fails: promote on 10.0.0.3:5432: connection refused after 61 s; the failover to orders-2 is abandoned and the target will be chosen again",
    );
    // What runs as orders-0 now waits for orders-2 to rejoin it: it does not answer either.
    t.probe(0, { ok: false, failures: 3 }, "uid-0b");
    await t.run(); // a new failover: fences orders-0's pod again
    expect(t.stored().status?.operation).toMatchObject({ type: "Failover", to: "orders-1" });
    t.addPod(0, "uid-0c");
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote")).at(-1)).toBe(`promote ${t.ip(1)}`);
    expect(t.stored().status).toMatchObject({
      currentPrimary: "orders-1",
      lastFailover: { from: "orders-0", to: "orders-1" },
    });
  });

  it("resumes a recorded operation with its target, never choosing again", async () => {
    const t = setup();
    t.stored().status = {
      ...t.stored().status,
      operation: {
        type: "Failover",
        step: "Promoting",
        from: "orders-0",
        to: "orders-1",
        startedAt: "2026-11-29T09:59:58Z",
      },
    };
    // orders-2 is further ahead now, but orders-1 was chosen before the restart.
    t.probe(0, { ok: false, failures: 9 });
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([`promote ${t.ip(1)}`]);
    expect(t.stored().status?.currentPrimary).toBe("orders-1");
  });

  it("does not act without the lease", async () => {
    const t = setup();
    t.setLeader(false);
    t.probe(0, { ok: false, failures: 3 });
    // Its first write ends the pass (the fence of reconcile/deps.ts), before anything is done.
    await expect(t.run()).rejects.toBeInstanceOf(NotLeaderError);
    expect(t.stored().status?.operation).toBeUndefined();
    expect(t.cluster.deletions).toEqual([]);
  });

  it("fails over even when an unrelated child cannot be applied, then reports that failure", async () => {
    const t = setup();
    await t.run(); // converged
    t.cluster.objects.delete(`Service/${NS}/orders-ro`);
    t.cluster.put({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "orders-ro", namespace: NS },
    });
    t.probe(0, { ok: false, failures: 3 });
    await expect(t.run()).rejects.toMatchObject({ reason: "OwnershipConflict" });
    expect(t.stored().status?.operation).toMatchObject({ type: "Failover", to: "orders-2" });
    expect(t.cluster.deletions).toContainEqual({
      ref: `Pod/${NS}/orders-0`,
      gracePeriodSeconds: 1,
    });
  });

  it("refuses in quorum mode when too few synchronous standbys answer, and says why once", async () => {
    const t = setup({ postgresql: { synchronous: { mode: "quorum", number: 1 } } });
    t.stored().status = { ...t.stored().status, synchronousStandbys: ["orders-1", "orders-2"] };
    t.probe(0, { ok: false, failures: 3 });
    t.probe(2, { ok: false, failures: 3 });
    await t.run(); // children, the Warning, status (initializedAt)
    await t.run(); // the topology records that the Database holds data
    expect((await t.run()).writes).toBe(0); // re-evaluated: nothing new to say or store
    expect(t.cluster.deletions).toEqual([]);
    const warnings = t.cluster.events.filter(e => e.reason === "FailoverImpossible");
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toContain("2 are needed");
  });
});

describe("a replica that answers but cannot follow its primary", () => {
  const T = Date.parse("2026-11-29T10:00:00Z");
  const at = (t: ReturnType<typeof setup>, ms: number) => (t.deps.now = () => new Date(T + ms));
  const stuck = (replayLsn = "0/2FFFF00") =>
    answer({ walReceiverStatus: undefined, timeline: 1, timelineAtLeast: true, replayLsn });
  const repairs = (t: ReturnType<typeof setup>) => t.sqlCalls.filter(c => c.startsWith("repair"));

  it("is repaired after 30 s without streaming or replay: marker, pod deleted (clean shutdown), Warning", async () => {
    const t = setup();
    t.probe(1, { probe: stuck() });
    const first = await t.run();
    expect(repairs(t)).toEqual([]);
    expect(first.requeueAfterMs).toBeLessThanOrEqual(30_000);
    at(t, 30_000);
    await t.run();
    expect(repairs(t)).toEqual([`repair ${t.ip(1)}`]);
    expect(t.cluster.deletions).toEqual([{ ref: `Pod/${NS}/orders-1` }]);
    const warning = t.cluster.events.find(e => e.reason === "ReplicaRepair");
    expect(warning?.type).toBe("Warning");
    expect(warning?.message).toContain("orders-1 answers but has neither streamed from orders-0");
    expect(warning?.message).toContain("rewind onto orders-0's timeline, or to clone it again");
    expect(t.stored().status?.currentPrimary).toBe("orders-0");
  });

  it("is left alone while its replay position moves (replaying WAL from its own disk)", async () => {
    const t = setup();
    t.probe(1, { probe: stuck("0/2000000") });
    await t.run();
    at(t, 20_000);
    t.probe(1, { probe: stuck("0/2800000") });
    await t.run();
    at(t, 40_000);
    await t.run();
    expect(repairs(t)).toEqual([]);
    at(t, 50_000);
    await t.run();
    expect(repairs(t)).toEqual([`repair ${t.ip(1)}`]);
  });

  it("is left alone while the primary is not answering (failover's business, not repair's)", async () => {
    const t = setup();
    t.probe(1, { probe: stuck() });
    t.probe(0, { ok: false, failures: 1 });
    await t.run();
    at(t, 60_000);
    await t.run();
    expect(repairs(t)).toEqual([]);
  });

  it("is not repaired again within 5 minutes, and is after", async () => {
    const t = setup();
    t.probe(1, { probe: stuck() });
    await t.run();
    at(t, 30_000);
    await t.run();
    t.addPod(1, "uid-1b");
    t.probe(1, { probe: stuck() }, "uid-1b");
    at(t, 100_000);
    await t.run();
    at(t, 200_000);
    await t.run();
    expect(repairs(t)).toHaveLength(1);
    at(t, 330_000);
    await t.run();
    expect(repairs(t)).toHaveLength(2);
  });

  it("keeps its pod when the marker cannot be left, and says why once", async () => {
    const t = setup();
    t.failRepair(new Error("request repair on 10.0.0.2:5432: permission denied"));
    t.probe(1, { probe: stuck() });
    await t.run();
    at(t, 30_000);
    await t.run();
    at(t, 31_000);
    await t.run();
    expect(repairs(t)).toHaveLength(2);
    expect(t.cluster.deletions).toEqual([]);
    const failed = t.cluster.events.filter(e => e.reason === "ReplicaRepairFailed");
    expect(failed).toHaveLength(1);
    expect(failed[0].message).toContain("permission denied");
  });

  it("is left alone by an operator that is not the leader", async () => {
    const t = setup();
    t.setLeader(false);
    t.probe(1, { probe: stuck() });
    await expect(t.run()).rejects.toBeInstanceOf(NotLeaderError);
    at(t, 60_000);
    await expect(t.run()).rejects.toBeInstanceOf(NotLeaderError);
    expect(repairs(t)).toEqual([]);
    expect(t.cluster.deletions).toEqual([]);
  });
});

describe("continuous archiving", () => {
  const STORE = {
    backup: {
      objectStore: { endpoint: "s3.example", bucket: "pg", credentials: { secretName: "s3" } },
    },
  };
  const primaryWith = (archiver: InstanceProbe["archiver"]) =>
    answer({ inRecovery: false, walReceiverStatus: undefined, archiver });
  const condition = (t: ReturnType<typeof setup>) =>
    t.stored().status?.conditions?.find(c => c.type === "ContinuousArchiving");

  it("shows the primary's archiving as a condition, with one Warning per failing segment", async () => {
    const t = setup(STORE);
    const failing = {
      archivedCount: 2,
      lastArchivedWal: "000000010000000000000002",
      lastArchivedAt: "2026-11-29T09:00:00.000Z",
      failedCount: 5,
      lastFailedWal: "000000010000000000000003",
      lastFailedAt: "2026-11-29T09:59:00.000Z",
      waiting: 3,
    };
    t.probe(0, { probe: primaryWith(failing) });
    await t.run();
    expect(condition(t)).toMatchObject({ status: "False", reason: "ArchiveFailing" });
    expect(condition(t)?.message).toContain("3 segment(s) (48 MiB) wait in pg_wal");
    t.probe(0, {
      probe: primaryWith({ ...failing, failedCount: 6, lastFailedAt: "2026-11-29T09:59:30.000Z" }),
    });
    await t.run();
    const warnings = t.cluster.events.filter(e => e.reason === "ArchiveFailing");
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toContain("Archiving 000000010000000000000003 from orders-0");

    t.probe(0, {
      probe: primaryWith({
        ...failing,
        lastArchivedWal: "000000010000000000000004",
        lastArchivedAt: "2026-11-29T10:00:00.000Z",
        waiting: 0,
      }),
    });
    await t.run();
    expect(condition(t)).toMatchObject({ status: "True", reason: "Archiving" });
  });

  it("writes no status for each segment archived under writes: the last one is progress, refreshed with it", async () => {
    const t = setup(STORE);
    const archivedUpTo = (segment: number) =>
      primaryWith({
        archivedCount: segment,
        lastArchivedWal: `00000001000000000000000${segment}`,
        lastArchivedAt: `2026-11-29T10:00:0${segment}.000Z`,
        failedCount: 0,
        waiting: 0,
      });
    t.probe(0, { probe: archivedUpTo(2) });
    await t.run();
    expect(condition(t)?.message).toContain("000000010000000000000002");
    const patches = t.cluster.calls.patchStatus;
    t.probe(0, { probe: archivedUpTo(3) });
    await t.run();
    expect(t.cluster.calls.patchStatus).toBe(patches);
    // Progress older than its refresh period is written, the segment with it.
    t.deps.now = () => new Date("2026-11-29T10:05:00Z");
    t.probe(0, { probe: archivedUpTo(4) });
    await t.run();
    expect(condition(t)?.message).toContain("000000010000000000000004");
  });

  it("warns once when the WAL waiting to be archived reaches half of the data volume", async () => {
    const t = setup(STORE); // a 1Gi volume: 32 segments of 16 MiB are half of it
    const exported: (number | undefined)[] = [];
    t.deps.ha!.onArchiving = (_ns, _name, archiver) => exported.push(archiver?.waiting);
    const backlog = (waiting: number) =>
      primaryWith({
        archivedCount: 1,
        lastArchivedWal: "000000010000000000000001",
        lastArchivedAt: "2026-11-29T09:00:00.000Z",
        failedCount: 9,
        lastFailedWal: "000000010000000000000002",
        lastFailedAt: "2026-11-29T09:59:00.000Z",
        waiting,
      });
    const backlogWarnings = () => t.cluster.events.filter(e => e.reason === "ArchiveBacklog");
    t.probe(0, { probe: backlog(31) });
    await t.run();
    expect(backlogWarnings()).toHaveLength(0);
    for (const waiting of [32, 40]) {
      t.probe(0, { probe: backlog(waiting) });
      await t.run();
    }
    expect(backlogWarnings()).toHaveLength(1);
    expect(backlogWarnings()[0]).toMatchObject({ type: "Warning" });
    expect(backlogWarnings()[0].message).toContain("half of orders-0's 1Gi volume");
    expect(exported.slice(-3)).toEqual([31, 32, 40]);
  });

  it("has no such condition without an object store", async () => {
    const t = setup();
    t.probe(0, { probe: primaryWith({ archivedCount: 0, failedCount: 0, waiting: 0 }) });
    await t.run();
    expect(condition(t)).toBeUndefined();
  });
});

describe("a second instance accepting writes", () => {
  const T = Date.parse("2026-11-29T10:00:00Z");
  const at = (t: ReturnType<typeof setup>, ms: number) => (t.deps.now = () => new Date(T + ms));
  const writable = answer({ inRecovery: false, walReceiverStatus: undefined });

  it("is fenced once probes said so for 3 s: label off, pod deleted (1 s grace), Warning", async () => {
    const t = setup();
    t.probe(1, { probe: writable });
    const first = await t.run();
    expect(t.cluster.deletions).toEqual([]);
    expect(first.requeueAfterMs).toBeLessThanOrEqual(3000);
    at(t, 3000);
    await t.run();
    expect(t.cluster.deletions).toEqual([{ ref: `Pod/${NS}/orders-1`, gracePeriodSeconds: 1 }]);
    expect(t.cluster.events.find(e => e.reason === "SecondPrimaryFenced")?.message).toContain(
      "orders-1 accepts writes, but orders-0 is the primary",
    );
    expect(t.stored().status?.currentPrimary).toBe("orders-0");
    expect(t.sqlCalls.filter(c => c.startsWith("promote"))).toEqual([]);
  });

  it("is left alone when it was a moment only (a view one write behind)", async () => {
    const t = setup();
    t.probe(1, { probe: writable });
    await t.run();
    t.probe(1, { probe: answer() });
    at(t, 3000);
    await t.run();
    t.probe(1, { probe: writable });
    at(t, 4000);
    await t.run(); // writable again: the 3 s start over
    expect(t.cluster.deletions).toEqual([]);
  });

  it("never counts the primary, nor an instance whose probes fail", async () => {
    const t = setup();
    t.probe(2, { ok: false, failures: 1, probe: writable });
    await t.run();
    at(t, 10_000);
    await t.run();
    expect(t.cluster.deletions).toEqual([]);
  });
});

describe("the monitor's fallback", () => {
  it("is remembered as unneeded once a probe logged in as the monitor, and not before", async () => {
    const t = setup();
    await t.run();
    expect(t.memory.of(`${NS}/${NAME}`).monitor.loggedIn).toBe(false);
    t.probe(1, { probe: answer({ byMonitor: true }) });
    await t.run();
    expect(t.memory.of(`${NS}/${NAME}`).monitor.loggedIn).toBe(true);
  });
});

describe("switchover", () => {
  it("on request: clean shutdown of the old primary, then promotion, then the annotation goes", async () => {
    const t = setup();
    t.stored().metadata!.annotations = { [ANNOTATION_SWITCHOVER]: "orders-1" };
    await t.run();
    expect(t.sqlCalls).toContain(`checkpoint ${t.ip(0)}`);
    expect(t.cluster.deletions).toContainEqual({
      ref: `Pod/${NS}/orders-0`,
      gracePeriodSeconds: undefined,
    });
    expect(t.stored().status?.operation).toMatchObject({ type: "Switchover", to: "orders-1" });
    t.addPod(0, "uid-0b");
    await t.run();
    expect(t.stored().status?.currentPrimary).toBe("orders-1");
    expect(t.stored().status?.lastSwitchover).toMatchObject({ from: "orders-0", to: "orders-1" });
    expect(t.stored().metadata?.annotations?.[ANNOTATION_SWITCHOVER]).toBeUndefined();
  });

  it("keeps a request made before the first probes (a new leader), and carries it out once they answer", async () => {
    const t = setup();
    const probed = new Map(t.records);
    t.records.clear(); // this leader has not probed anything yet
    t.stored().metadata!.annotations = { [ANNOTATION_SWITCHOVER]: "orders-1" };
    const waiting = await t.run();
    expect(t.cluster.events.filter(e => e.reason === "SwitchoverRefused")).toEqual([]);
    expect(t.stored().metadata?.annotations?.[ANNOTATION_SWITCHOVER]).toBe("orders-1");
    expect(t.cluster.deletions).toEqual([]);
    expect(waiting.requeueAfterMs).toBeLessThanOrEqual(1000);
    probed.forEach((record, name) => t.records.set(name, record));
    await t.run();
    expect(t.stored().status?.operation).toMatchObject({ type: "Switchover", to: "orders-1" });
  });

  it("refuses a request for an unknown instance with an Event and drops it", async () => {
    const t = setup();
    t.stored().metadata!.annotations = { [ANNOTATION_SWITCHOVER]: "orders-7" };
    await t.run();
    expect(t.cluster.events.find(e => e.reason === "SwitchoverRefused")?.message).toBe(
      "orders-7 is not a ready, streaming replica",
    );
    expect(t.stored().metadata?.annotations?.[ANNOTATION_SWITCHOVER]).toBeUndefined();
    expect(t.cluster.deletions).toEqual([]);
  });
});

describe("lowering a limit standbys must match (max_connections 200 → 120)", () => {
  const limits = {
    max_connections: 200,
    max_worker_processes: 8,
    max_wal_senders: 16,
    max_prepared_transactions: 0,
    max_locks_per_transaction: 64,
  };
  function lowering() {
    const t = setup({ postgresql: { parameters: { max_connections: "120" } } });
    const pending = { pendingRestart: ["max_connections"], hotStandbyLimits: limits };
    t.probe(0, { probe: answer({ inRecovery: false, walReceiverStatus: undefined, ...pending }) });
    t.probe(1, { probe: answer(pending) });
    t.probe(2, { probe: answer(pending) });
    return t;
  }
  const promotions = (t: ReturnType<typeof setup>) =>
    t.sqlCalls.filter(c => c.startsWith("promote"));

  it("restarts the primary first, in place (clean shutdown), and never fails over meanwhile", async () => {
    const t = lowering();
    await t.run();
    expect(t.stored().status).toMatchObject({
      phase: "RestartingPrimary",
      operation: { type: "Restart", step: "Restarting", from: "orders-0", fencedPodUid: "uid-0" },
    });
    expect(t.sqlCalls).toContain(`checkpoint ${t.ip(0)}`);
    expect(t.cluster.deletions).toEqual([
      { ref: `Pod/${NS}/orders-0`, gracePeriodSeconds: undefined },
    ]);
    // Down and not answering: still no failover.
    t.probe(0, { ok: false, failures: 9 });
    await t.run();
    await t.run();
    expect(promotions(t)).toEqual([]);
    expect(t.cluster.deletions).toHaveLength(1);
    expect(t.stored().status?.operation).toMatchObject({ type: "Restart" });
    // Back, ready: done, the same primary.
    t.addPod(0, "uid-0b");
    t.probe(0, { probe: answer({ inRecovery: false, walReceiverStatus: undefined }) }, "uid-0b");
    await t.run();
    expect(t.stored().status?.operation).toBeUndefined();
    expect(t.stored().status?.currentPrimary).toBe("orders-0");
    expect(promotions(t)).toEqual([]);
    expect(t.cluster.events.map(e => e.reason)).toEqual(
      expect.arrayContaining(["RestartStarted", "RestartCompleted"]),
    );
    expect(t.cluster.events.map(e => e.reason)).not.toContain("FailoverStarted");
  });

  it("times out too when the primary's pod was gone before it could be recorded", async () => {
    const t = lowering();
    t.stored().status = {
      ...t.stored().status,
      phase: "RestartingPrimary",
      operation: {
        type: "Restart",
        step: "Restarting",
        from: "orders-0",
        to: "orders-0",
        startedAt: "2026-11-29T10:00:00Z",
      },
    };
    t.cluster.objects.delete(`Pod/${NS}/orders-0`);
    t.deps.now = () => new Date("2026-11-29T10:05:01Z");
    await t.run();
    expect(t.stored().status?.operation).toBeUndefined();
    expect(t.cluster.events.map(e => e.reason)).toContain("RestartTimeout");
  });

  it("hands over to failure handling when the primary is not back in time", async () => {
    const t = lowering();
    await t.run();
    t.probe(0, { ok: false, failures: 9 });
    t.deps.now = () => new Date("2026-11-29T10:05:01Z");
    await t.run();
    expect(t.stored().status?.operation).toBeUndefined();
    expect(t.cluster.events.find(e => e.reason === "RestartTimeout")?.message).toBe(
      "The primary orders-0 is not back after 301 s; failure handling takes over",
    );
    expect(t.stored().status?.phase).toBe("Degraded");
    await t.run(); // the pod is gone: fenced at once, promoted
    expect(t.stored().status?.lastFailover).toMatchObject({ from: "orders-0", to: "orders-1" });
  });
});

describe("the Secrets hold the passwords PostgreSQL has", () => {
  const passwordIn = (t: ReturnType<typeof setup>, name: string) =>
    Buffer.from(
      (t.cluster.find("Secret", NS, name)?.data as Record<string, string>).password,
      "base64",
    ).toString();

  it.each(["orders-superuser", "orders-app"])(
    "%s deleted: back with the same password",
    async name => {
      const t = setup();
      await t.run();
      const before = passwordIn(t, name);
      t.cluster.objects.delete(`Secret/${NS}/${name}`);
      await t.run();
      expect(passwordIn(t, name)).toBe(before);
      expect(t.cluster.events.find(e => e.reason === "SecretRestored")?.message).toContain(
        `Secret ${name} was deleted: its password is back to the one PostgreSQL has`,
      );
    },
  );

  const edit = (t: ReturnType<typeof setup>, name: string, password: string) => {
    const secret = t.cluster.find("Secret", NS, name)!;
    t.cluster.put({
      ...secret,
      data: { ...(secret.data as object), password: Buffer.from(password).toString("base64") },
    });
  };
  const passfiles = (t: ReturnType<typeof setup>) =>
    t.sqlCalls.filter(c => c.startsWith("passfile"));

  it("a superuser password edited in the Secret is rotated: ALTER ROLE with the old one, passfiles follow", async () => {
    const t = setup();
    await t.run();
    const old = passwordIn(t, "orders-superuser");
    expect(passfiles(t)).toHaveLength(3); // once per pod at the start
    t.sqlCalls.length = 0;
    edit(t, "orders-superuser", "rotated-secret");
    await t.run();
    expect(t.sqlCalls).toContain(`password postgres as postgres ${old} on ${t.ip(0)}`);
    expect(passwordIn(t, "orders-superuser")).toBe("rotated-secret");
    expect(t.cluster.find("Secret", NS, "orders-superuser")?.metadata?.annotations).toMatchObject({
      "pgkeeper.dev/password-sha256": passwordFingerprint("rotated-secret"),
    });
    expect(passfiles(t).sort()).toEqual(
      [0, 1, 2].map(n => `passfile rotated-secret on ${t.ip(n)}`),
    );
    expect(t.cluster.events.find(e => e.reason === "PasswordRotated")?.message).toBe(
      "The password of role postgres is now the one in Secret orders-superuser",
    );
    t.sqlCalls.length = 0;
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("password") || c.startsWith("passfile"))).toEqual(
      [],
    );
  });

  it("a deposed leader sets no password: ALTER ROLE is a write, fenced like the API's", async () => {
    const t = setup();
    await t.run();
    t.sqlCalls.length = 0;
    edit(t, "orders-superuser", "rotated-by-whom");
    t.setLeader(false); // e.g. the lease went while this pass was queued or running
    await expect(t.run()).rejects.toBeInstanceOf(Error);
    expect(t.sqlCalls.filter(c => c.startsWith("password"))).toEqual([]);
  });

  it("an app password edited in the Secret is rotated, as the superuser", async () => {
    const t = setup();
    await t.run();
    const superuser = passwordIn(t, "orders-superuser");
    edit(t, "orders-app", "new-app-password");
    await t.run();
    expect(t.sqlCalls).toContain(`password app as postgres ${superuser} on ${t.ip(0)}`);
    expect(passwordIn(t, "orders-app")).toBe("new-app-password");
    expect(passwordIn(t, "orders-superuser")).toBe(superuser);
  });

  it("a rotation that fails keeps the edit in the Secret, the old password in use, and says why", async () => {
    const t = setup();
    await t.run();
    t.failPassword(new Error("set password on 10.0.0.1:5432: connection refused"));
    edit(t, "orders-app", "new-app-password");
    await expect(t.run()).rejects.toMatchObject({ reason: "PasswordRotationFailed" });
    expect(passwordIn(t, "orders-app")).toBe("new-app-password");
    expect(t.cluster.events.find(e => e.reason === "PasswordRotationFailed")?.message).toContain(
      "connection refused",
    );
    t.failPassword(undefined);
    await t.run();
    expect(t.cluster.events.find(e => e.reason === "PasswordRotated")).toBeDefined();
  });

  it("a password PostgreSQL cannot match through a verifier is refused, not half-applied", async () => {
    const t = setup();
    await t.run();
    edit(t, "orders-app", "pässword");
    await expect(t.run()).rejects.toMatchObject({
      reason: "PasswordRotationFailed",
      message: expect.stringContaining("outside printable ASCII"),
    });
    expect(t.sqlCalls.filter(c => c.startsWith("password"))).toEqual([]);
  });

  it("after an operator restart, an edited password is in use only if PostgreSQL accepts it", async () => {
    const t = setup();
    await t.run();
    edit(t, "orders-app", "edited-while-down");
    forgetDatabase(t.deps, `${NS}/${NAME}`);
    await expect(t.run()).rejects.toMatchObject({
      reason: "SecretChanged",
      message: expect.stringContaining("Secret orders-app is not the one PostgreSQL has"),
    });
    expect(passwordIn(t, "orders-app")).toBe("edited-while-down"); // left as the user made it
    t.accepted.add("edited-while-down"); // e.g. the rotation finished just before the restart
    await t.run();
    expect(t.cluster.find("Secret", NS, "orders-app")?.metadata?.annotations).toMatchObject({
      "pgkeeper.dev/password-sha256": passwordFingerprint("edited-while-down"),
    });
  });

  it("fails over even while the app Secret is gone and nobody knows its password", async () => {
    const t = setup();
    await t.run();
    forgetDatabase(t.deps, `${NS}/${NAME}`);
    t.cluster.objects.delete(`Secret/${NS}/orders-app`);
    t.probe(0, { ok: false, failures: 3 });
    await expect(t.run()).rejects.toMatchObject({
      reason: "SecretMissing",
      message: expect.stringContaining("Secret orders-app is gone"),
    });
    expect(t.stored().status?.operation).toMatchObject({ type: "Failover", from: "orders-0" });
    expect(t.cluster.find("Secret", NS, "orders-app")).toBeUndefined();
  });

  it("never generates a new password for a Database that held data", async () => {
    const t = setup();
    await t.run();
    forgetDatabase(t.deps, `${NS}/${NAME}`); // an operator that started after the Secret went
    t.cluster.objects.delete(`Secret/${NS}/orders-superuser`);
    await expect(t.run()).rejects.toMatchObject({ reason: "SecretMissing" });
    expect(t.cluster.find("Secret", NS, "orders-superuser")).toBeUndefined();
  });
});

describe("status and parameters", () => {
  it("takes a replica that does not stream out of -ro and says Degraded why, until it streams again", async () => {
    const t = setup();
    await t.run();
    expect(t.stored().status?.phase).toBe("Ready");
    // Diverged after an isolation: on the old timeline, its WAL receiver never streaming.
    t.probe(1, { probe: answer({ walReceiverStatus: "waiting" }) });
    await t.run();
    const status = t.stored().status!;
    expect(t.pod(1)?.metadata?.labels?.[LABEL_ROLE]).toBe("replica-not-serving");
    expect(t.pod(2)?.metadata?.labels?.[LABEL_ROLE]).toBe("replica");
    expect(status.phase).toBe("Degraded");
    expect(status.instances?.find(i => i.name === "orders-1")).toMatchObject({
      servesReads: false,
      notServingReason: "not streaming (WAL receiver waiting)",
    });
    const reads = status.conditions?.find(c => c.type === "ReplicasServing");
    expect(reads).toMatchObject({ status: "False", reason: "ReplicasNotServing" });
    expect(reads?.message).toContain("orders-1: not streaming (WAL receiver waiting)");
    expect(status.conditions?.find(c => c.type === "Ready")?.status).toBe("False");

    t.probe(1, { probe: answer() });
    await t.run();
    expect(t.pod(1)?.metadata?.labels?.[LABEL_ROLE]).toBe("replica");
    expect(t.stored().status?.phase).toBe("Ready");
  });

  it("writes nothing at rest while a replica does not serve: Ready keeps its transition time", async () => {
    // Every pod ready, so the instance count alone would say Ready; the replica that does not
    // stream makes it False again in the same pass. Written every pass before (kwok's bench:
    // one status patch per reconcile at rest), though nothing changed.
    const t = setup();
    t.probe(1, { probe: answer({ walReceiverStatus: "waiting" }) });
    await t.run();
    const ready = () => t.stored().status?.conditions?.find(c => c.type === "Ready");
    expect(ready()).toMatchObject({ status: "False", reason: "ReplicasNotServing" });
    const since = ready()?.lastTransitionTime;
    const patches = t.cluster.calls.patchStatus;
    t.deps.now = () => new Date("2026-11-29T10:05:00Z");
    await t.run();
    expect(ready()?.lastTransitionTime).toBe(since);
    expect(t.cluster.calls.patchStatus).toBe(patches);
  });

  it("shows role, timeline, lag, streaming and the synchronous set per instance", async () => {
    const t = setup();
    t.probe(0, {
      probe: answer({
        inRecovery: false,
        lsn: "0/3000200",
        walReceiverStatus: undefined,
        standbys: [{ name: "orders-1", state: "streaming", syncState: "quorum" }],
      }),
    });
    await t.run();
    const status = t.stored().status!;
    expect(status.instances?.find(i => i.name === "orders-1")).toMatchObject({
      role: "replica",
      timeline: 1,
      lagBytes: 0x200,
      streaming: true,
      synchronous: true,
    });
    expect(status.synchronousStandbys).toEqual(["orders-1"]);
  });

  it("shows the image each instance runs, and why an instance's start was refused, with one Warning", async () => {
    const t = setup();
    const refusal =
      "the image runs PostgreSQL 17.12, but the Database's version is 15: refusing to start";
    for (const [n, postgres] of [
      [
        0,
        {
          image: "registry/postgres:15",
          state: { running: { startedAt: "2026-11-29T09:00:00Z" } },
        },
      ],
      [
        1,
        {
          image: "registry/postgres:17",
          restartCount: 2,
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { exitCode: 1, message: refusal } },
        },
      ],
    ] as const) {
      const pod = t.pod(n)!;
      t.cluster.put({
        ...pod,
        spec: { containers: [{ name: "postgres", image: postgres.image }] },
        status: {
          ...(pod.status as object),
          containerStatuses: [{ name: "postgres", ...postgres }],
        },
      });
    }
    await t.run();
    await t.run(); // the kubelet's retries: no second Warning
    const instances = t.stored().status?.instances ?? [];
    expect(instances.find(i => i.name === "orders-0")).toMatchObject({
      image: "registry/postgres:15",
    });
    expect(instances.find(i => i.name === "orders-0")?.startRefused).toBeUndefined();
    expect(instances.find(i => i.name === "orders-1")).toMatchObject({
      image: "registry/postgres:17",
      startRefused: refusal,
    });
    expect(t.cluster.events.filter(e => e.reason === "InstanceStartRefused")).toEqual([
      expect.objectContaining({ type: "Warning", message: `orders-1: ${refusal}` }),
    ]);
  });

  it("remembers per pod only while the pod exists, and per Database until it is forgotten", async () => {
    const t = setup();
    await t.run();
    const memory = t.memory.of(`${NS}/${NAME}`);
    expect([...memory.parameters.applied.keys()].sort()).toEqual(["uid-0", "uid-1", "uid-2"]);
    t.cluster.objects.delete(`Pod/${NS}/orders-2`);
    await t.run();
    expect([...memory.parameters.applied.keys()].sort()).toEqual(["uid-0", "uid-1"]);
    expect([...memory.parameters.pendingAfterReload.keys()].sort()).toEqual(["uid-0", "uid-1"]);
    forgetDatabase(t.deps, `${NS}/${NAME}`);
    expect(t.memory.size).toBe(0);
  });

  it("runs on frozen objects, as the read cache hands them out", async () => {
    const t = setup();
    t.probe(0, { ok: false, failures: 3 });
    const read = jest.spyOn(t.cluster, "getDatabase");
    await t.run();
    const db = await read.mock.results[0].value;
    expect(Object.isFrozen(db.status)).toBe(true);
    expect(t.stored().status?.operation?.fencedPodUid).toBe("uid-0");
  });

  it("applies the managed parameters once per pod", async () => {
    const t = setup();
    await t.run();
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("parameters")).sort()).toEqual(
      [0, 1, 2].map(n => `parameters ${t.ip(n)}`).sort(),
    );
  });

  it("lists pending restarts and restarts the replica that has one (normal grace)", async () => {
    const t = setup();
    t.probe(1, { probe: answer({ pendingRestart: ["shared_buffers"] }) });
    await t.run();
    expect(t.stored().status?.pendingRestart).toEqual(["shared_buffers"]);
    expect(t.cluster.deletions).toEqual([
      { ref: `Pod/${NS}/orders-1`, gracePeriodSeconds: undefined },
    ]);
    expect(t.cluster.events.find(e => e.reason === "InstanceRestarting")?.message).toBe(
      "Restarting orders-1: parameters pending restart: shared_buffers",
    );
  });

  it("restarts replicas first even when the probes report the primary's pending restart first", async () => {
    const t = setup();
    t.leavePending(["max_connections"]);
    await t.run(); // ALTER SYSTEM + reload everywhere: max_connections pending on all three
    // The next probe round reached the primary only.
    t.probe(0, {
      probe: answer({
        inRecovery: false,
        walReceiverStatus: undefined,
        pendingRestart: ["max_connections"],
      }),
    });
    await t.run();
    expect(t.stored().status?.operation).toBeUndefined();
    expect(t.cluster.deletions).toEqual([
      { ref: `Pod/${NS}/orders-1`, gracePeriodSeconds: undefined },
    ]);
  });

  it("forgets what a reload left pending once that postmaster restarted", async () => {
    const t = setup();
    t.leavePending(["max_connections"]);
    await t.run();
    t.leavePending([]);
    // Every instance restarted in place (same pods, new postmasters) with nothing pending.
    for (const n of [0, 1, 2])
      t.probe(n, {
        probe: answer({
          postmasterStartTime: "t1",
          ...(n === 0 ? { inRecovery: false, walReceiverStatus: undefined } : {}),
        }),
      });
    await t.run();
    expect(t.cluster.deletions).toEqual([]);
    expect(t.stored().status?.operation).toBeUndefined();
  });

  it("asks again each pass while a value is held back, with one Warning naming why", async () => {
    const t = setup();
    const why = "wal_level stays logical while logical replication slots exist (orders_migration)";
    t.holdBackParameters(why);
    await t.run();
    const applies = () => t.sqlCalls.filter(c => c.startsWith("parameters")).length;
    const first = applies();
    expect(first).toBeGreaterThan(0);
    await t.run();
    expect(applies()).toBeGreaterThan(first); // not remembered as applied
    const warnings = t.cluster.events.filter(e => e.reason === "ParametersNotApplied");
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toContain(why);

    t.holdBackParameters(undefined); // the slots were dropped
    await t.run();
    const settled = applies();
    await t.run();
    expect(applies()).toBe(settled); // applied once, then remembered
  });

  it("keeps failing over when parameters cannot be applied: condition and one Warning", async () => {
    const t = setup();
    t.failParameters(new Error("parameter work_mem: invalid value"));
    const report = await t.run();
    expect(report.requeueAfterMs).toBeLessThanOrEqual(10_000);
    await t.run();
    expect(t.cluster.events.filter(e => e.reason === "ParametersNotApplied")).toHaveLength(1);
    expect(t.stored().status?.conditions?.find(c => c.type === "ParametersApplied")).toMatchObject({
      status: "False",
      reason: "ApplyFailed",
    });
    t.probe(0, { ok: false, failures: 3 });
    await t.run();
    expect(t.stored().status?.operation).toMatchObject({ type: "Failover", to: "orders-2" });
  });

  it("keeps the last synchronous set while the primary reports none", async () => {
    const t = setup({ postgresql: { synchronous: { mode: "quorum", number: 1 } } });
    t.stored().status = { ...t.stored().status, synchronousStandbys: ["orders-1", "orders-2"] };
    await t.run(); // primary answers with no standbys (they are reconnecting)
    expect(t.stored().status?.synchronousStandbys).toEqual(["orders-1", "orders-2"]);
  });
});

describe("TLS upkeep (no restarts)", () => {
  it("reloads each instance whose pg_hba.conf or certificate changed on disk, and only those", async () => {
    const t = setup();
    t.probe(0, { probe: answer({ inRecovery: false, configFilesChanged: true }) });
    t.probe(2, { probe: answer({ lsn: "0/3000100", configFilesChanged: true }) });
    await t.run();
    expect(t.sqlCalls.filter(c => c.startsWith("reload"))).toEqual([
      `reload ${t.ip(0)}`,
      `reload ${t.ip(2)}`,
    ]);
    expect(t.pod(0)).toBeDefined(); // nothing restarted
  });

  it("sets up the operator's roles, as the superuser, on a primary whose roles are missing or older", async () => {
    const t = setup();
    t.probe(0, { probe: answer({ inRecovery: false, rolesOutdated: true }) });
    await t.run();
    expect(t.sqlCalls).toContain(`roles on ${t.ip(0)} as postgres`);
  });

  it("does neither without the lease", async () => {
    const t = setup();
    t.setLeader(false);
    t.probe(0, {
      probe: answer({ inRecovery: false, configFilesChanged: true, rolesOutdated: true }),
    });
    await expect(t.run()).rejects.toBeInstanceOf(NotLeaderError);
    expect(t.sqlCalls.filter(c => /^(reload|roles)/.test(c))).toEqual([]);
  });
});
