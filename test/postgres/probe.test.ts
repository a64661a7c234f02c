import { lagBytes, lsnDiff, parseLsn } from "../../capabilities/database/instance/lsn";
import { probeInstance } from "../../capabilities/database/instance/instance-sql";
import { Cluster } from "./harness/cluster";
import { eventually } from "./harness/eventually";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

const TIMEOUT_MS = 5000;
const cluster = new Cluster();
let primary: PgServer;
let s1: PgServer;
let s2: PgServer;

beforeAll(async () => {
  primary = await cluster.primary("primary", { synchronous_standby_names: "ANY 1 (*)" });
  s1 = await cluster.standby(primary, "s1");
  s2 = await cluster.standby(primary, "s2");
});
afterAll(() => cluster.destroy());

describe("probeInstance", () => {
  it("reads a primary: role, timeline 1, WAL position, quorum standbys, start time", async () => {
    // A standby counts toward the quorum once it has reported where it flushed to: until its
    // first reply, which can come after it shows as streaming, the primary lists it as async.
    const p = await eventually(async () => {
      const probe = await probeInstance(primary.target, TIMEOUT_MS);
      if (probe.standbys.length < 2 || probe.standbys.some(s => !s.flushLsn))
        throw new Error(`standbys not both reporting yet: ${JSON.stringify(probe.standbys)}`);
      return probe;
    });
    expect(p).toMatchObject({ inRecovery: false, timeline: 1, pendingRestart: [] });
    // The values a standby must match, as the server runs them (the harness sets 10 senders).
    expect(p.hotStandbyLimits).toEqual({
      max_connections: 100,
      max_locks_per_transaction: 64,
      max_prepared_transactions: 0,
      max_wal_senders: 10,
      max_worker_processes: 8,
    });
    expect(p.replayLsn).toBeUndefined();
    expect(p.walReceiverStatus).toBeUndefined();
    expect(parseLsn(p.lsn)).toBeGreaterThan(0n);
    expect(p.standbys).toEqual([
      expect.objectContaining({ name: "s1", state: "streaming", syncState: "quorum" }),
      expect.objectContaining({ name: "s2", state: "streaming", syncState: "quorum" }),
    ]);
    for (const s of p.standbys) expect(parseLsn(s.flushLsn ?? "")).toBeGreaterThan(0n);
    const started = primary.sql("SELECT extract(epoch FROM pg_postmaster_start_time()) * 1000");
    expect(Date.parse(p.postmasterStartTime)).toBe(Math.floor(Number(started)));
  });

  it("reads a hot standby: in recovery, timeline 1, streaming, no standbys of its own", async () => {
    const s = await probeInstance(s1.target, TIMEOUT_MS);
    expect(s).toMatchObject({
      inRecovery: true,
      timeline: 1,
      walReceiverStatus: "streaming",
      standbys: [],
      pendingRestart: [],
    });
    expect(parseLsn(s.replayLsn ?? "")).toBeGreaterThan(0n);
    expect(lsnDiff(s.lsn, s.replayLsn ?? "")).toBeGreaterThanOrEqual(0n);
  });

  it("shows replay lag in bytes while replay is paused, and none once it resumes", async () => {
    s1.sql("SELECT pg_wal_replay_pause()");
    try {
      primary.sql(
        "CREATE TABLE lag_probe AS SELECT g, repeat('x', 100) AS pad FROM generate_series(1, 20000) g",
      );
      const p = await probeInstance(primary.target, TIMEOUT_MS);
      // Receiving goes on while replay is paused.
      const s = await eventually(async () => {
        const r = await probeInstance(s1.target, TIMEOUT_MS);
        expect(lsnDiff(r.lsn, p.lsn)).toBeGreaterThanOrEqual(0n);
        return r;
      });
      const lag = lagBytes(p.lsn, s.replayLsn ?? "");
      expect(lag).toBeGreaterThan(1_000_000n); // 20000 rows of ~130 bytes
      // Same arithmetic as PostgreSQL's own.
      const pgLag = primary.sql(`SELECT pg_wal_lsn_diff('${p.lsn}', '${s.replayLsn}')`);
      expect(lsnDiff(p.lsn, s.replayLsn ?? "").toString()).toBe(pgLag);
    } finally {
      s1.sql("SELECT pg_wal_replay_resume()");
    }
    const p = await probeInstance(primary.target, TIMEOUT_MS);
    await eventually(async () => {
      const s = await probeInstance(s1.target, TIMEOUT_MS);
      expect(lagBytes(p.lsn, s.replayLsn ?? "")).toBe(0n);
    });
  });

  it("lists parameters changed in the file that wait for a restart", async () => {
    primary.sql("ALTER SYSTEM SET max_connections = 150");
    primary.sql("SELECT pg_reload_conf()");
    try {
      await eventually(async () => {
        const p = await probeInstance(primary.target, TIMEOUT_MS);
        expect(p.pendingRestart).toEqual(["max_connections"]);
      });
    } finally {
      primary.sql("ALTER SYSTEM RESET max_connections");
      primary.sql("SELECT pg_reload_conf()");
    }
    await eventually(async () => {
      expect((await probeInstance(primary.target, TIMEOUT_MS)).pendingRestart).toEqual([]);
    });
  });

  it("sees a standby leave when it stops", async () => {
    await s2.stop("fast");
    await eventually(async () => {
      const p = await probeInstance(primary.target, TIMEOUT_MS);
      expect(p.standbys.map(s => s.name)).toEqual(["s1"]);
    });
  });
});
