/**
 * A standby that runs but can never follow its primary, repaired as the operator does it: the
 * repair marker left over SQL (requestRepair, on the real hot standby), a clean shutdown (the pod
 * deleted), and the real entrypoint at the next start. Two causes: a history that diverged from
 * the new primary's, which pg_rewind fixes, and WAL the standby needs that the primary no longer
 * has, where there is nothing to rewind and only a new clone helps.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { promote, requestRepair } from "../../capabilities/database/instance/instance-sql";
import { FILE_REPAIR_MARKER } from "../../capabilities/database/specs/layout";
import { Cluster } from "./harness/cluster";
import { entrypointFor, waitForLog } from "./harness/entrypoint";
import { PgServer } from "./harness/server";

jest.setTimeout(240_000);

let cluster: Cluster;
beforeEach(() => (cluster = new Cluster()));
afterEach(() => cluster.destroy());

/** Points a running standby at `primary` (ALTER SYSTEM, reload), as the operator does. */
function follow(standby: PgServer, primary: PgServer): void {
  const conninfo = `host=127.0.0.1 port=${primary.port} user=postgres password=${cluster.password} application_name=${standby.name}`;
  standby.sql(`ALTER SYSTEM SET primary_conninfo = '${conninfo}'`);
  standby.sql("SELECT pg_reload_conf()");
}

/** The standby answers in recovery, and its replay position stays put while it does not stream. */
async function expectStuck(standby: PgServer, cause: string): Promise<void> {
  await waitForLog(standby, cause);
  const replayed = standby.sql("SELECT pg_last_wal_replay_lsn()");
  await waitForLog(standby, cause); // PostgreSQL retries: seen again, nothing replayed meanwhile
  expect(standby.sql("SELECT pg_is_in_recovery()")).toBe("t");
  expect(standby.sql("SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming'")).toBe(
    "0",
  );
  expect(standby.sql("SELECT pg_last_wal_replay_lsn()")).toBe(replayed);
}

/** What the operator does, then the pod's next start: marker, clean shutdown, entrypoint. */
async function repair(standby: PgServer, primary: PgServer, podName: string): Promise<void> {
  await requestRepair(standby.target);
  expect(existsSync(path.join(standby.dataDir, FILE_REPAIR_MARKER))).toBe(true);
  await standby.stop("fast");
  await standby.start(180_000, entrypointFor(cluster, standby, primary, podName));
  await primary.waitFor(
    `SELECT state FROM pg_stat_replication WHERE application_name = '${podName}'`,
    "streaming",
    60_000,
  );
  expect(existsSync(path.join(standby.dataDir, FILE_REPAIR_MARKER))).toBe(false);
}

describe("entrypoint.sh: repairing a standby that cannot follow its primary", () => {
  it("rewinds a standby whose history went past the new primary's fork point", async () => {
    const old = await cluster.primary("db-0");
    const promoted = await cluster.standby(old, "db-1");
    const diverged = await cluster.standby(old, "db-2");
    old.sql("CREATE TABLE t (id int, wrote text)");
    old.sql("INSERT INTO t SELECT g, 'all' FROM generate_series(1, 1000) g");
    await promoted.waitFor("SELECT count(*) FROM t", "1000");
    await diverged.waitFor("SELECT count(*) FROM t", "1000");
    // db-1 stops receiving; db-2 gets WAL that db-1 will never have (asynchronous replication).
    await promoted.stop("fast");
    old.sql("INSERT INTO t SELECT g, 'lost' FROM generate_series(1001, 2000) g");
    await diverged.waitFor("SELECT count(*) FROM t", "2000");
    await old.stop("immediate");
    await promoted.start();
    await promote(promoted.target, 30);
    promoted.sql("INSERT INTO t VALUES (5000, 'new primary')");

    follow(diverged, promoted);
    await expectStuck(diverged, "before current recovery point");

    await repair(diverged, promoted, "db-2");
    expect(diverged.sql("SELECT received_tli FROM pg_stat_wal_receiver")).toBe("2");
    await diverged.waitFor("SELECT count(*) FROM t WHERE wrote = 'new primary'", "1");
    expect(diverged.sql("SELECT count(*) FROM t WHERE wrote = 'lost'")).toBe("0");
    expect(diverged.logTail(200)).toContain("Rewound onto the primary's timeline");
  });

  it("clones a standby again when the WAL it needs is gone from the primary", async () => {
    const primary = await cluster.primary("db-0", { wal_keep_size: "0", max_wal_size: "64MB" });
    const behind = await cluster.standby(primary, "db-1");
    primary.sql("CREATE TABLE t (id int, pad text)");
    await behind.waitFor("SELECT count(*) FROM t", "0");
    await behind.stop("fast");
    // More WAL than the primary keeps, then two checkpoints: the segments db-1 needs are recycled.
    for (let i = 0; i < 6; i++) {
      primary.sql("INSERT INTO t SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g");
      primary.sql("SELECT pg_switch_wal()");
    }
    primary.sql("CHECKPOINT");
    primary.sql("CHECKPOINT");
    await behind.start();
    await expectStuck(behind, "has already been removed");

    await repair(behind, primary, "db-1");
    await behind.waitFor("SELECT count(*) FROM t", "120000");
    const log = behind.logTail(200);
    expect(log).toContain("Nothing to rewind");
    expect(log).toContain("Cloned the primary");
  });

  it("refuses to leave the marker in a primary", async () => {
    const primary = await cluster.primary("db-0");
    await expect(requestRepair(primary.target)).rejects.toThrow(/only a replica is repaired/);
    expect(existsSync(path.join(primary.dataDir, FILE_REPAIR_MARKER))).toBe(false);
  });
});
