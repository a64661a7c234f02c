/**
 * The monitor's probes on long-lived sessions, against a real PostgreSQL: one session per
 * instance, reused; a session lost between probes is not the instance's failure; what a reused
 * session cannot see (a postmaster that no longer accepts connections) the accept check finds;
 * every failure still within the probe's deadline.
 */
import { InstanceSqlError } from "../../capabilities/database/instance/instance-sql";
import { ProbeSessions } from "../../capabilities/database/instance/probe-sessions";
import { readFileSync } from "node:fs";
import { Cluster } from "./harness/cluster";
import { eventually } from "./harness/eventually";
import { childPids } from "./harness/os";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

const TIMEOUT_MS = 1500; // the operator's probe timeout
/** What a caller waits beyond its own timeout: timers, closing the socket, a loaded machine. */
const SLACK_MS = 1000;
const cluster = new Cluster();
let server: PgServer;

beforeAll(async () => {
  server = await cluster.primary();
});
afterAll(() => cluster.destroy());

/** Backend pids of the probe sessions, as the server sees them. */
const probeBackends = (): string[] =>
  server
    .sql("SELECT pid FROM pg_stat_activity WHERE application_name = 'pgkeeper-probe' ORDER BY pid")
    .split("\n")
    .filter(Boolean);

async function timed<T>(work: Promise<T>): Promise<{ value?: T; err?: Error; ms: number }> {
  const started = Date.now();
  try {
    return { value: await work, ms: Date.now() - started };
  } catch (err) {
    return { err: err as Error, ms: Date.now() - started };
  }
}

describe("ProbeSessions", () => {
  let sessions: ProbeSessions;
  beforeEach(() => (sessions = new ProbeSessions({ acceptCheckMs: 60_000 })));
  afterEach(() => sessions.closeAll());

  it("probes ten times on one session: one backend, one authentication", async () => {
    for (let i = 0; i < 10; i++) {
      const probe = await sessions.probeInstance(server.target, TIMEOUT_MS);
      expect(probe.inRecovery).toBe(false);
    }
    expect(probeBackends()).toHaveLength(1);
    expect(sessions.size).toBe(1);
  });

  it("a session terminated between probes is not a failure: the probe reconnects", async () => {
    await sessions.probeInstance(server.target, TIMEOUT_MS);
    const [before] = probeBackends();
    server.sql(`SELECT pg_terminate_backend(${before})`);
    const probe = await timed(sessions.probeInstance(server.target, TIMEOUT_MS));
    expect(probe.err).toBeUndefined();
    expect(probeBackends()).not.toContain(before);
  });

  it("a server restarted between probes: the next probe answers on a new session", async () => {
    await sessions.probeInstance(server.target, TIMEOUT_MS);
    const started = (await sessions.probeInstance(server.target, TIMEOUT_MS)).postmasterStartTime;
    await server.restart("fast");
    const probe = await sessions.probeInstance(server.target, TIMEOUT_MS);
    expect(probe.postmasterStartTime).not.toBe(started);
  });

  it("a stopped server fails at once, naming the address", async () => {
    await sessions.probeInstance(server.target, TIMEOUT_MS);
    await server.stop("fast");
    try {
      const { err, ms } = await timed(sessions.probeInstance(server.target, TIMEOUT_MS));
      expect(err).toBeInstanceOf(InstanceSqlError);
      expect(err?.message).toMatch(`probe on 127.0.0.1:${server.port}: connect ECONNREFUSED`);
      expect(ms).toBeLessThan(TIMEOUT_MS);
    } finally {
      await server.start();
    }
  });

  it("a frozen server fails within the deadline, and the next probe after thawing answers", async () => {
    await sessions.probeInstance(server.target, TIMEOUT_MS);
    server.freeze();
    try {
      const { err, ms } = await timed(sessions.probeInstance(server.target, TIMEOUT_MS));
      expect(err?.message).toBe(
        `probe on 127.0.0.1:${server.port}: no answer within ${TIMEOUT_MS} ms`,
      );
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    } finally {
      server.thaw();
    }
    expect((await timed(sessions.probeInstance(server.target, TIMEOUT_MS))).err).toBeUndefined();
  });

  it("a postmaster that accepts no connections is found by the accept check, within the deadline", async () => {
    const checking = new ProbeSessions({ acceptCheckMs: 0 });
    const notChecking = sessions; // acceptCheckMs: 60 s
    try {
      await checking.probeInstance(server.target, TIMEOUT_MS);
      await notChecking.probeInstance(server.target, TIMEOUT_MS);
      await server.freezePostmasterOnceSessionUp();
      try {
        // The established session still answers: without the check, the probe sees nothing wrong.
        expect(
          (await timed(notChecking.probeInstance(server.target, TIMEOUT_MS))).err,
        ).toBeUndefined();
        const { err, ms } = await timed(checking.probeInstance(server.target, TIMEOUT_MS));
        expect(err?.message).toMatch(`probe on 127.0.0.1:${server.port}: `);
        expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      } finally {
        server.thaw();
      }
      expect((await timed(checking.probeInstance(server.target, TIMEOUT_MS))).err).toBeUndefined();
    } finally {
      checking.closeAll();
    }
  });

  it("the accept check leaves nothing in the server's log: its TLS handshake is finished and closed", async () => {
    const checking = new ProbeSessions({ acceptCheckMs: 0 });
    /** The postmaster's children but autovacuum's workers, which come and go by themselves. */
    const commandOf = (pid: number): string => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        return "autovacuum worker"; // exited meanwhile: not counted either way
      }
    };
    const backends = (): number =>
      childPids(server.pid!).filter(pid => !commandOf(pid).includes("autovacuum worker")).length;
    try {
      await checking.probeInstance(server.target, TIMEOUT_MS); // its session, opened once
      const steady = backends();
      const logFrom = readFileSync(server.logFile, "utf8").length;
      for (let i = 0; i < 5; i++) {
        await checking.probeInstance(server.target, TIMEOUT_MS);
        // The check's backend has exited, so it wrote whatever it had to say.
        await eventually(() => {
          if (backends() > steady) throw new Error("the accept check's backend still runs");
        });
      }
      const logged = readFileSync(server.logFile, "utf8").slice(logFrom);
      expect(logged).not.toMatch(/SSL|startup packet|could not/);
    } finally {
      checking.closeAll();
    }
  });

  it("a new password opens a new session; a wrong one fails without reusing the old", async () => {
    await sessions.probeInstance(server.target, TIMEOUT_MS);
    const [before] = probeBackends();
    const { err } = await timed(
      sessions.probeInstance({ ...server.target, password: "not-the-password" }, TIMEOUT_MS),
    );
    expect((err as InstanceSqlError).code).toBe("28P01");
    expect(probeBackends()).not.toContain(before);
    expect((await timed(sessions.probeInstance(server.target, TIMEOUT_MS))).err).toBeUndefined();
  });

  it("retainOnly closes the sessions of instances no longer probed", async () => {
    await sessions.probeInstance(server.target, TIMEOUT_MS);
    sessions.retainOnly([{ host: "127.0.0.1", port: server.port }]);
    expect(sessions.size).toBe(1);
    sessions.retainOnly([]);
    expect(sessions.size).toBe(0);
    // The backend goes once the Terminate message has been read.
    for (let i = 0; i < 100 && probeBackends().length > 0; i++)
      await new Promise(r => setTimeout(r, 20));
    expect(probeBackends()).toEqual([]);
  });
});
