/**
 * A hostile server at an instance's address (a tenant's own image) gets neither the password nor
 * the operator's thread pool: cleartext and MD5 requests are refused before a byte of the
 * password leaves, and a SCRAM iteration count past the cap is refused before any key is derived,
 * while probes of another Database's real server keep their deadline.
 */
import { probeInstance } from "../../capabilities/database/instance/instance-sql";
import { ProbeSessions } from "../../capabilities/database/instance/probe-sessions";
import {
  ANSWER_TOO_LARGE,
  AUTH_REFUSED,
  MAX_ANSWER_BYTES,
  MAX_SCRAM_ITERATIONS,
} from "../../capabilities/database/instance/sql-session";
import { Cluster } from "./harness/cluster";
import { Attack, HostileServer } from "./harness/hostile-server";
import { PgServer } from "./harness/server";
import { rejection } from "./harness/rejection";

jest.setTimeout(120_000);

const SECRET = "superuser-secret-4711";
const PROBE_MS = 3000;
const cluster = new Cluster();
let real: PgServer;
const hostiles: HostileServer[] = [];

beforeAll(async () => {
  real = await cluster.primary();
});
afterAll(async () => {
  await Promise.all(hostiles.map(h => h.stop()));
  await cluster.destroy();
});

async function hostile(attack: Attack): Promise<HostileServer> {
  const server = await HostileServer.start(attack);
  hostiles.push(server);
  return server;
}

/** A probe as the superuser would log in, without TLS (a pod from before TLS). */
const probeAt = (port: number) =>
  probeInstance({ host: "127.0.0.1", port, password: SECRET }, PROBE_MS);

describe("a hostile server", () => {
  it.each<[Attack, string]>([
    ["cleartext", "a cleartext password"],
    ["md5", "an MD5-hashed password"],
  ])("asking for %s gets a refusal and not a byte of the password", async (attack, what) => {
    const server = await hostile(attack);
    const { err, ms } = await rejection(probeAt(server.port));
    expect(err.code).toBe(AUTH_REFUSED);
    expect(err.message).toContain(`the server asked postgres for ${what}`);
    expect(ms).toBeLessThan(PROBE_MS);
    // Nothing at all came after the request: no password message ('p'), hashed or not.
    expect(server.received.map(b => b.length)).toEqual([0]);
  });

  it(`asking SCRAM for 2^31 iterations is refused at once (the cap is ${MAX_SCRAM_ITERATIONS}), and another Database's probes keep their deadline`, async () => {
    const server = await hostile("scram-iterations");
    // More attempts than Node's thread pool has threads (4): uncapped, each would hold one for
    // minutes of PBKDF2, and every other login's key derivation would wait behind them.
    const attempts = await Promise.all(
      Array.from({ length: 8 }, () => rejection(probeAt(server.port))),
    );
    for (const { err, ms } of attempts) {
      expect(err.message).toContain("exceeds scramMaxIterations");
      expect(ms).toBeLessThan(PROBE_MS);
    }
    // The real server's probe logs in with SCRAM too: it needs the thread pool.
    const started = Date.now();
    const probe = await probeInstance(real.target, PROBE_MS);
    expect(probe.inRecovery).toBe(false);
    expect(Date.now() - started).toBeLessThan(PROBE_MS);
  });
});

describe("a hostile server that floods", () => {
  it(`is hung up on past ${MAX_ANSWER_BYTES} bytes for one call, a probe session's included`, async () => {
    const server = await hostile("flood");
    const started = Date.now();
    const { err } = await rejection(probeAt(server.port));
    expect((err as { code?: string }).code).toBe(ANSWER_TOO_LARGE);
    expect(err.message).toContain(`sent more than ${MAX_ANSWER_BYTES} bytes for one call`);
    expect(Date.now() - started).toBeLessThan(PROBE_MS);
    const sessions = new ProbeSessions({ acceptCheckMs: 60_000 });
    try {
      const probe = await rejection(
        sessions.probeInstance(
          { host: "127.0.0.1", port: server.port, password: SECRET },
          PROBE_MS,
        ),
      );
      expect(probe.err.message).toContain("bytes for one call");
    } finally {
      sessions.closeAll();
    }
    // What reached the client is bounded by the cap and the socket buffers, not by the flood.
    expect(server.flooded).toBeLessThan(64 * MAX_ANSWER_BYTES);
  });
});

describe("a tenant's search_path", () => {
  afterEach(() => {
    real.sql("ALTER DATABASE postgres RESET search_path");
    real.sql("DROP SCHEMA IF EXISTS evil CASCADE");
  });

  it("cannot put its own pg_settings before the catalog's in the probe", async () => {
    real.sql("CREATE SCHEMA evil");
    real.sql(
      "CREATE VIEW evil.pg_settings AS SELECT 'shared_buffers'::text AS name, 'x'::text AS setting, true AS pending_restart",
    );
    real.sql("ALTER DATABASE postgres SET search_path = evil, pg_catalog");
    // psql's own session sees the shadow (the setting works), the probe does not.
    expect(real.sql("SELECT name FROM pg_settings WHERE pending_restart")).toBe("shared_buffers");
    const probe = await probeInstance(real.target, PROBE_MS);
    expect(probe.pendingRestart).toEqual([]);
  });
});
