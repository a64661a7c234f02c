import {
  InstanceSqlError,
  applyParameters,
  probeInstance,
  promote,
} from "../../capabilities/database/instance/instance-sql";
import { Cluster } from "./harness/cluster";
import { eventually } from "./harness/eventually";
import { PgServer } from "./harness/server";
import { rejection } from "./harness/rejection";

jest.setTimeout(120_000);

/** What a caller waits beyond its own timeout: timers, closing the socket, a loaded machine. */
const SLACK_MS = 1000;
const cluster = new Cluster();
let server: PgServer;

beforeAll(async () => {
  server = await cluster.primary();
});
afterAll(() => cluster.destroy());

describe("failures are bounded and clear", () => {
  it("wrong password: an authentication error that names the address, not the password", async () => {
    const secret = "wrong-secret-4711";
    const { err } = await rejection(probeInstance({ ...server.target, password: secret }, 5000));
    expect(err).toBeInstanceOf(InstanceSqlError);
    expect(err.message).toMatch(
      `probe on 127.0.0.1:${server.port}: password authentication failed for user "postgres"`,
    );
    expect((err as InstanceSqlError).code).toBe("28P01");
    expect(JSON.stringify({ ...err, message: err.message, stack: err.stack })).not.toContain(
      secret,
    );
  });

  it("a frozen server (SIGSTOP): probe rejects within its timeout", async () => {
    server.freeze();
    try {
      const { err, ms } = await rejection(probeInstance(server.target, 1500));
      expect(err.message).toBe(`probe on 127.0.0.1:${server.port}: no answer within 1500 ms`);
      expect(ms).toBeGreaterThanOrEqual(1400);
      expect(ms).toBeLessThan(1500 + SLACK_MS);
    } finally {
      server.thaw();
    }
  });

  it("a server that stops answering mid-operation: applyParameters rejects within its timeout", async () => {
    // The session is up and ALTER SYSTEM works, but the frozen postmaster never relays the
    // reload to the backend: only the overall deadline can end the wait for it.
    const work = applyParameters(server.target, { work_mem: "9MB" }, 2000);
    await server.freezePostmasterOnceSessionUp();
    try {
      const { err, ms } = await rejection(work);
      expect(err.message).toBe(
        `applyParameters on 127.0.0.1:${server.port}: no answer within 2000 ms`,
      );
      expect(ms).toBeLessThan(2000 + SLACK_MS);
    } finally {
      server.thaw();
    }
    // The server was not harmed: the reload it missed happens now.
    await eventually(() => expect(server.sql("SHOW work_mem")).toBe("9MB"));
  });

  it("a stopped server: probe and promote reject at once with the address", async () => {
    await server.stop("fast");
    const probe = await rejection(probeInstance(server.target, 10_000));
    expect(probe.err.message).toBe(
      `probe on 127.0.0.1:${server.port}: connect ECONNREFUSED 127.0.0.1:${server.port}`,
    );
    expect((probe.err as InstanceSqlError).code).toBe("ECONNREFUSED");
    expect(probe.ms).toBeLessThan(1000);
    const prom = await rejection(promote(server.target, 10));
    expect(prom.err.message).toMatch(`promote on 127.0.0.1:${server.port}: connect ECONNREFUSED`);
    expect(prom.ms).toBeLessThan(1000);
  });
});
