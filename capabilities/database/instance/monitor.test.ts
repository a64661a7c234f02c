import { FakeClock } from "../../../test/unit/fake-clock";
import { InstanceMonitor } from "./monitor";
import { NO_ANSWER } from "./sql-session";
import { InstanceProbe, InstanceTarget } from "./types";

const answer = (over: Partial<InstanceProbe> = {}): InstanceProbe => ({
  inRecovery: false,
  timeline: 1,
  lsn: "0/1",
  postmasterStartTime: "t0",
  pendingRestart: [],
  standbys: [],
  ...over,
});

/** A scripted PostgreSQL: per host, an answer or an error. */
function setup(loopLagMs = 0) {
  const behaviour = new Map<string, InstanceProbe | Error>();
  const asked: InstanceTarget[] = [];
  const changes: string[] = [];
  const discounts: string[] = [];
  const clock = new FakeClock(1_000);
  const monitor = new InstanceMonitor({
    sql: {
      probeInstance: async t => {
        asked.push(t);
        const b = behaviour.get(t.host);
        if (!b || b instanceof Error) throw b ?? new Error("connection refused");
        return b;
      },
    },
    intervalMs: 1000,
    timeoutMs: 500,
    failureThreshold: 3,
    onChange: key => changes.push(key),
    loopLag: { maxSince: () => loopLagMs },
    onDiscount: (key, instance, d) => discounts.push(`${key} ${instance}: ${d.reason}`),
    clock,
  });
  return { behaviour, asked, changes, clock, monitor, discounts };
}

/** An instance to probe at `ip`, as the monitor role would log in there. */
const at = (name: string, uid: string, ip: string) => ({
  name,
  uid,
  target: { host: ip, port: 5432, user: "pgkeeper_monitor", password: "" },
});

const targets = [at("db-0", "u0", "10.0.0.1"), at("db-1", "u1", "10.0.0.2")];

describe("InstanceMonitor", () => {
  it("probes every tracked instance as its target says and keeps the answers", async () => {
    const { behaviour, asked, monitor } = setup();
    behaviour.set("10.0.0.1", answer());
    behaviour.set("10.0.0.2", answer({ inRecovery: true }));
    monitor.track("ns/db", targets);
    await monitor.probeAll();
    expect(asked).toEqual(targets.map(t => t.target));
    expect(monitor.view("ns/db").get("db-1")).toMatchObject({ ok: true, failures: 0 });
    expect(monitor.view("ns/db").get("db-1")?.probe?.inRecovery).toBe(true);
  });

  it("counts failures in a row, keeps the last answer, and reports the threshold once", async () => {
    const { behaviour, changes, clock, monitor } = setup();
    behaviour.set("10.0.0.1", answer());
    monitor.track("ns/db", targets.slice(0, 1));
    await monitor.probeAll();
    expect(changes).toEqual(["ns/db"]); // first answer
    behaviour.set("10.0.0.1", new Error("timeout"));
    clock.advance(1000);
    await monitor.probeAll(); // 1: ok → failing is a change
    await monitor.probeAll(); // 2: no change
    await monitor.probeAll(); // 3: threshold crossed is a change
    await monitor.probeAll(); // 4: no change
    expect(changes).toEqual(["ns/db", "ns/db", "ns/db"]);
    const record = monitor.view("ns/db").get("db-0");
    expect(record).toMatchObject({
      ok: false,
      failures: 4,
      lastError: "timeout",
      failingSince: 2000,
    });
    expect(record?.probe?.timeline).toBe(1);
  });

  it("does not ask for a reconcile when only replication progress changed", async () => {
    const { behaviour, changes, monitor } = setup();
    behaviour.set("10.0.0.1", answer({ lsn: "0/1" }));
    monitor.track("ns/db", targets.slice(0, 1));
    await monitor.probeAll();
    behaviour.set("10.0.0.1", answer({ lsn: "0/FFFF" }));
    await monitor.probeAll();
    expect(changes).toHaveLength(1);
    behaviour.set("10.0.0.1", answer({ lsn: "0/FFFF", pendingRestart: ["shared_buffers"] }));
    await monitor.probeAll();
    expect(changes).toHaveLength(2);
  });

  it("asks for a reconcile when a replica's lag crosses maxLag or half of it, not in between", async () => {
    const { behaviour, changes, monitor } = setup();
    behaviour.set("10.0.0.1", answer({ lsn: "0/10000" }));
    behaviour.set("10.0.0.2", answer({ inRecovery: true, lsn: "0/10000" }));
    monitor.track("ns/db", targets, 0x1000);
    await monitor.probeAll();
    const first = changes.length;
    const replicaAt = async (lsn: string) => {
      behaviour.set("10.0.0.2", answer({ inRecovery: true, lsn }));
      await monitor.probeAll();
      return changes.length - first;
    };
    expect(await replicaAt("0/FF00")).toBe(0); // 0x100 behind: within half
    expect(await replicaAt("0/F000")).toBe(1); // 0x1000 behind: crossed half, at max
    expect(await replicaAt("0/F700")).toBe(1); // 0x900: still between half and max
    expect(await replicaAt("0/E000")).toBe(2); // 0x2000: beyond max
    expect(await replicaAt("0/D000")).toBe(2); // still beyond
    expect(await replicaAt("0/FFFF")).toBe(3); // caught up
  });

  it("starts a new record for a new pod under the same name", async () => {
    const { behaviour, monitor } = setup();
    behaviour.set("10.0.0.1", new Error("down"));
    monitor.track("ns/db", targets.slice(0, 1));
    await monitor.probeAll();
    monitor.track("ns/db", [at("db-0", "u9", "10.0.0.1")]);
    expect(monitor.view("ns/db").size).toBe(0);
    await monitor.probeAll();
    expect(monitor.view("ns/db").get("db-0")).toMatchObject({ uid: "u9", failures: 1 });
  });

  it("never runs two probes of one hung instance at once", async () => {
    const { monitor } = setup();
    let calls = 0;
    const hung = new InstanceMonitor({
      sql: { probeInstance: () => (calls++, new Promise<InstanceProbe>(() => undefined)) },
      intervalMs: 1000,
      timeoutMs: 500,
      failureThreshold: 3,
      onChange: () => undefined,
      clock: new FakeClock(),
    });
    hung.track("ns/db", targets.slice(0, 1));
    void hung.probeAll();
    void hung.probeAll();
    expect(calls).toBe(1);
    hung.stop();
    monitor.stop();
  });

  it("probes nothing once every Database is untracked (leadership lost)", async () => {
    const { asked, clock, monitor } = setup();
    monitor.track("ns/db", targets);
    monitor.track("ns/other", [at("other-0", "u9", "10.0.0.9")]);
    await clock.advanceAsync(1000);
    const probes = asked.length;
    monitor.untrackAll();
    await clock.advanceAsync(10_000);
    expect(asked).toHaveLength(probes);
    expect(monitor.view("ns/db").size).toBe(0);
  });

  it("probes on its interval until untracked", async () => {
    const { behaviour, asked, clock, monitor } = setup();
    behaviour.set("10.0.0.1", answer());
    monitor.track("ns/db", targets.slice(0, 1));
    await clock.advanceAsync(1000);
    await clock.advanceAsync(1000);
    expect(asked.length).toBe(2);
    monitor.untrack("ns/db");
    await clock.advanceAsync(5000);
    expect(asked.length).toBe(2);
  });

  it("tells the SQL edge which instances it still probes, so it can close the others' sessions", () => {
    const kept: string[][] = [];
    const monitor = new InstanceMonitor({
      sql: {
        probeInstance: async () => answer(),
        retainOnly: keep => kept.push(keep.map(k => `${k.host}:${k.port}`)),
      },
      intervalMs: 1000,
      timeoutMs: 500,
      failureThreshold: 3,
      onChange: () => undefined,
      clock: new FakeClock(1_000),
    });
    monitor.track("ns/a", targets);
    monitor.track("ns/b", [at("b-0", "b0", "10.0.1.1")]);
    monitor.track("ns/a", targets); // the same pods again: nothing released, nothing looked at
    monitor.track("ns/a", [targets[0]]); // scaled down
    monitor.untrack("ns/b");
    monitor.untrackAll();
    expect(kept).toEqual([["10.0.0.1:5432", "10.0.1.1:5432"], ["10.0.0.1:5432"], []]);
  });

  describe("silence (no answer in time)", () => {
    const silence = () => Object.assign(new Error("no answer within 500 ms"), { code: NO_ANSWER });
    const onNode = (name: string, ip: string, node: string) => ({
      ...at(name, `uid-${name}`, ip),
      node,
    });

    /** Rounds one second apart; the failures in a row each instance has after them. */
    async function rounds(m: InstanceMonitor, clock: FakeClock, n: number) {
      for (let i = 0; i < n; i++) {
        await m.probeAll();
        clock.advance(1000);
      }
    }

    it("is not counted when another Database's instances on the node are silent while one there answers", async () => {
      const { behaviour, clock, monitor, discounts } = setup();
      behaviour.set("10.0.0.9", answer());
      behaviour.set("10.0.0.1", silence());
      behaviour.set("10.0.0.2", silence());
      monitor.track("ns/alive", [onNode("alive-0", "10.0.0.9", "node-a")]);
      monitor.track("ns/orders", [onNode("orders-0", "10.0.0.1", "node-a")]);
      monitor.track("ns/billing", [onNode("billing-0", "10.0.0.2", "node-a")]);
      await rounds(monitor, clock, 5);
      // The first silence had nothing to compare with; none after it counted.
      expect(monitor.view("ns/orders").get("orders-0")).toMatchObject({ ok: false, failures: 1 });
      expect(monitor.view("ns/billing").get("billing-0")).toMatchObject({ ok: false, failures: 0 });
      expect(monitor.view("ns/billing").get("billing-0")?.discounted).toMatch(/node node-a/);
      expect(discounts).toContain("ns/billing billing-0: slowNode");
    });

    it("counts when nothing on the node answers (a dead node), and a refusal always", async () => {
      const { behaviour, clock, monitor } = setup();
      behaviour.set("10.0.0.1", silence());
      behaviour.set("10.0.0.2", silence());
      behaviour.set("10.0.0.3", answer());
      behaviour.set("10.0.0.4", new Error("connect ECONNREFUSED"));
      monitor.track("ns/orders", [onNode("orders-0", "10.0.0.1", "node-a")]);
      monitor.track("ns/billing", [onNode("billing-0", "10.0.0.2", "node-a")]);
      monitor.track("ns/ledger", [
        onNode("ledger-0", "10.0.0.3", "node-b"),
        onNode("ledger-1", "10.0.0.4", "node-b"),
      ]);
      await rounds(monitor, clock, 3);
      expect(monitor.view("ns/orders").get("orders-0")?.failures).toBe(3);
      expect(monitor.view("ns/billing").get("billing-0")?.failures).toBe(3);
      expect(monitor.view("ns/ledger").get("ledger-1")?.failures).toBe(3);
    });

    it("is not counted while the operator's own loop lagged, and a refusal still is", async () => {
      const { behaviour, clock, monitor, discounts } = setup(400);
      behaviour.set("10.0.0.1", silence());
      behaviour.set("10.0.0.2", new Error("connect ECONNREFUSED"));
      monitor.track("ns/db", targets);
      await rounds(monitor, clock, 3);
      expect(monitor.view("ns/db").get("db-0")).toMatchObject({ failures: 0 });
      expect(monitor.view("ns/db").get("db-1")).toMatchObject({ failures: 3 });
      expect(discounts).toEqual(Array(3).fill("ns/db db-0: operatorLag"));
    });

    it("counts again once one instance has been silent for the whole hold", async () => {
      const { behaviour, clock, monitor } = setup(400);
      behaviour.set("10.0.0.1", silence());
      monitor.track("ns/db", targets.slice(0, 1));
      await rounds(monitor, clock, 63);
      expect(monitor.view("ns/db").get("db-0")?.failures).toBe(3); // seconds 60, 61, 62
    });
  });
});
