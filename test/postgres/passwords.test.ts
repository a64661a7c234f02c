/**
 * Password rotation as the operator does it, against real servers: ALTER ROLE with a SCRAM
 * verifier computed by the operator, and the replication passfile of a running standby rewritten
 * over SQL, so that it reconnects with the new password and nothing restarts. Only a standby
 * started before TLS (ADR 0017) streams with the superuser's password from a passfile (one started
 * now streams as streaming_replica by certificate, test/postgres/tls.test.ts): this one is set up
 * as such a pod's is, with primary_conninfo naming the passfile.
 */
import path from "node:path";
import {
  acceptsPassword,
  setRolePassword,
  writePassfile,
} from "../../capabilities/database/instance/instance-sql";
import { scramVerifier } from "../../capabilities/database/lib/scram";
import { Cluster } from "./harness/cluster";
import { PgServer } from "./harness/server";

jest.setTimeout(180_000);

let cluster: Cluster;
let primary: PgServer;
let standby: PgServer;

beforeEach(async () => {
  cluster = new Cluster();
  primary = await cluster.primary("db-0");
  standby = await cluster.standby(primary, "db-1");
  const passfile = path.join(cluster.ownedDir("db-1-run"), "pgpass");
  cluster.writeOwned(passfile, `*:*:*:postgres:${cluster.password}\n`);
  standby.sql(
    `ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres passfile=${passfile} application_name=db-1'`,
  );
  standby.sql("SELECT pg_reload_conf()");
  await standby.waitFor("SELECT conninfo LIKE '%passfile%' FROM pg_stat_wal_receiver", "t");
  await streaming();
});
afterEach(() => cluster.destroy());

const streaming = (timeoutMs = 30_000) =>
  primary.waitFor(
    "SELECT state FROM pg_stat_replication WHERE application_name = 'db-1'",
    "streaming",
    timeoutMs,
  );
const reconnect = () =>
  primary.sql(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_replication WHERE application_name = 'db-1'",
  );

/** ALTER ROLE on the primary, as the operator does, logged in with the current password. */
async function rotate(role: string, to: string, user = "postgres"): Promise<void> {
  await setRolePassword({ ...primary.target, user }, role, scramVerifier(to));
}

async function acceptedEventually(server: PgServer, user: string, password: string): Promise<void> {
  const target = { ...server.target, user, password };
  const deadline = Date.now() + 30_000;
  while (!(await acceptsPassword(target))) {
    if (Date.now() > deadline) throw new Error(`${server.name} still refuses the new password`);
    await new Promise(r => setTimeout(r, 100));
  }
}

describe("rotating passwords on real servers", () => {
  it("sets a role's password from a verifier: the new one logs in, the old one no longer does", async () => {
    primary.sql("CREATE ROLE app LOGIN PASSWORD 'first'");
    await rotate("app", "second-password");
    const app = { ...primary.target, user: "app" };
    expect(await acceptsPassword({ ...app, password: "second-password" })).toBe(true);
    expect(await acceptsPassword({ ...app, password: "first" })).toBe(false);
    // The verifier, not the password, is what the server got and keeps.
    expect(
      primary.sql(
        "SELECT rolpassword LIKE 'SCRAM-SHA-256$4096:%' FROM pg_authid WHERE rolname = 'app'",
      ),
    ).toBe("t");
  });

  it("a standby's WAL receiver logs in with the rotated superuser password once its passfile is rewritten", async () => {
    const rotated = "rotated:with\\colon";
    const started = standby.sql("SELECT pg_postmaster_start_time()");
    await rotate("postgres", rotated);
    await acceptedEventually(standby, "postgres", rotated);
    expect(await writePassfile({ ...standby.target, password: rotated })).toBe(true);
    reconnect();
    await streaming();
    expect(standby.sql("SELECT pg_postmaster_start_time()")).toBe(started); // no restart
  });

  it("leaves neither the verifier nor the password in the server logs, however much they log", async () => {
    // Every statement, by each route PostgreSQL has: log_statement, durations, sampled
    // transactions and statements, and auto_explain's plans (of the passfile's COPY query).
    const LOG_EVERYTHING = [
      "log_statement = 'all'",
      "log_min_duration_statement = 0",
      "log_min_duration_sample = 0",
      "log_statement_sample_rate = 1",
      "log_transaction_sample_rate = 1",
      "session_preload_libraries = 'auto_explain'",
    ];
    for (const server of [primary, standby]) {
      LOG_EVERYTHING.forEach(setting => server.sql(`ALTER SYSTEM SET ${setting}`));
      server.sql("SELECT pg_reload_conf()");
      await server.waitFor("SELECT current_setting('log_transaction_sample_rate')", "1");
      // Known (so ALTER SYSTEM takes it) in the sessions that preload auto_explain from now on.
      server.sql("ALTER SYSTEM SET auto_explain.log_min_duration = 0");
      server.sql("SELECT pg_reload_conf()");
      await server.waitFor("SELECT current_setting('auto_explain.log_min_duration')", "0");
    }
    // And pg_stat_statements, which keeps the text of utility statements (track_utility, on).
    primary.sql("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await primary.restart();
    primary.sql("CREATE EXTENSION pg_stat_statements");
    await streaming();
    const rotated = "logged-nowhere";
    const verifier = scramVerifier(rotated);
    await setRolePassword(primary.target, "postgres", verifier);
    await acceptedEventually(standby, "postgres", rotated);
    expect(await writePassfile({ ...standby.target, password: rotated })).toBe(true);
    for (const server of [primary, standby]) {
      // A statement after them: once it is in the log, so is whatever they logged.
      const marker = `marker-${server.name}`;
      server.sql(`SELECT '${marker}'`);
      const deadline = Date.now() + 10_000;
      while (!server.logTail(5000).includes(marker) && Date.now() < deadline)
        await new Promise(r => setTimeout(r, 100));
      const log = server.logTail(5000);
      expect(log).toContain(marker);
      expect([server.name, log.includes(verifier.split("$")[2])]).toEqual([server.name, false]);
      expect([server.name, log.includes(rotated)]).toEqual([server.name, false]);
    }
    // (The word split: this query's own text is tracked too.)
    const tracked = "SELECT count(*) FROM pg_stat_statements WHERE query ~* ('pass' || 'word')";
    expect(primary.sql(tracked)).toBe("0");
  });

  it("without the rewrite, the same reconnect fails: the passfile is what carries the password", async () => {
    await rotate("postgres", "rotated-password");
    await acceptedEventually(standby, "postgres", "rotated-password");
    reconnect();
    await expect(streaming(5000)).rejects.toThrow();
    expect(standby.logTail(50)).toContain("password authentication failed");
  });
});
