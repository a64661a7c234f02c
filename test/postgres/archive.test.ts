/**
 * Continuous archiving as the instances do it: PostgreSQL's archive_command is the real
 * pgbackrest-archive.sh, pushing through pgBackRest (the host's, the version the image has) into a real
 * S3-compatible store (versitygw, TLS), with the configuration the operator renders. The pod's
 * paths are overridden through pgBackRest's environment, which takes precedence over the file.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { probeInstance } from "../../capabilities/database/ha/instance-sql";
import { FILE_ARCHIVE } from "../../capabilities/database/specs/layout";
import { pgbackrestConf, STANZA } from "../../capabilities/database/specs/pgbackrest";
import { ARCHIVE_SH } from "../../capabilities/database/specs/scripts/archive";
import { Cluster } from "./harness/cluster";
import { bin } from "./harness/os";
import { ObjectStore } from "./harness/object-store";
import { PgServer } from "./harness/server";

jest.setTimeout(400_000);

let cluster: Cluster;
let store: ObjectStore;
beforeEach(async () => {
  cluster = new Cluster();
  store = await ObjectStore.start();
});
afterEach(async () => {
  await cluster.destroy();
  await store.destroy();
});

const DB = { namespace: "prod", name: "orders", uid: "uid-1" };

/** A primary archiving through archive.sh, as an instance pod would. */
async function archivingPrimary(
  name: string,
  db = DB,
): Promise<{ server: PgServer; env: Record<string, string> }> {
  const config = cluster.ownedDir(`${name}-config`);
  const run = cluster.ownedDir(`${name}-run`);
  const spool = cluster.ownedDir(`${name}-spool`);
  const lock = cluster.ownedDir(`${name}-lock`);
  const conf = pgbackrestConf(
    {
      endpoint: store.endpoint,
      bucket: store.bucket,
      path: "/backups",
      region: "us-east-1",
      uriStyle: "path",
      caFile: store.caFile,
    },
    db,
  );
  cluster.writeOwned(path.join(config, "pgbackrest.conf"), conf);
  const script = path.join(config, FILE_ARCHIVE);
  writeFileSync(script, ARCHIVE_SH, { mode: 0o755 });
  const server = await cluster.primary(name);
  server.sql("ALTER SYSTEM SET archive_mode = on");
  server.sql(`ALTER SYSTEM SET archive_command = '/bin/sh ${script} "%p"'`);
  const env = {
    ...store.credentialsEnv,
    PGKEEPER_CONFIG_DIR: config,
    PGKEEPER_RUN_DIR: run,
    PGBACKREST_PG1_PATH: server.dataDir,
    PGBACKREST_PG1_PORT: String(server.port),
    PGBACKREST_PG1_SOCKET_PATH: server.socketDir,
    PGBACKREST_SPOOL_PATH: spool,
    PGBACKREST_LOCK_PATH: lock,
  };
  await server.stop("fast");
  await server.start(60_000, { command: bin("postgres"), args: ["-D", server.dataDir], env });
  return { server, env };
}

/** pgbackrest as the test's user against the same repository (check, info). */
function pgbackrest(env: Record<string, string>, config: string, ...args: string[]): string {
  return execFileSync("pgbackrest", [`--config=${config}`, `--stanza=${STANZA}`, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, ...env },
  });
}

describe("pgbackrest-archive.sh: continuous WAL archiving into an S3-compatible store", () => {
  it("creates the stanza at the first push, then archives every switched segment", async () => {
    const { server } = await archivingPrimary("db-0");
    server.sql("CREATE TABLE t AS SELECT g FROM generate_series(1, 10000) g");
    const wal = server.sql("SELECT pg_walfile_name(pg_current_wal_lsn())");
    server.sql("SELECT pg_switch_wal()");
    await server.waitFor(`SELECT last_archived_wal >= '${wal}' FROM pg_stat_archiver`, "t", 60_000);
    expect(server.sql("SELECT failed_count FROM pg_stat_archiver")).toBe("0");
    // What the operator's probe reads (and the ContinuousArchiving condition is made of).
    const probe = await probeInstance(server.target, 10_000);
    expect(probe.archiver).toMatchObject({ failedCount: 0, waiting: 0 });
    expect(probe.archiver!.archivedCount).toBeGreaterThan(0);
    expect(probe.archiver!.lastArchivedWal! >= wal).toBe(true);
    expect(server.logTail(200)).toContain(
      "No pgBackRest stanza in the repository yet: creating it",
    );
  });

  it("keeps every segment while the store is down, and archives them all once it is back", async () => {
    const { server, env } = await archivingPrimary("db-0");
    const archived = () =>
      server.sql("SELECT coalesce(last_archived_wal, '') FROM pg_stat_archiver");
    server.sql("SELECT pg_switch_wal()");
    await server.waitFor("SELECT archived_count > 0 FROM pg_stat_archiver", "t", 60_000);
    await store.stop();
    const before = server.sql("SELECT failed_count FROM pg_stat_archiver");
    for (let i = 0; i < 3; i++) {
      server.sql(`CREATE TABLE t${i} AS SELECT g FROM generate_series(1, 1000) g`);
      server.sql("SELECT pg_switch_wal()");
    }
    const last = server.sql("SELECT pg_walfile_name(pg_current_wal_lsn() - 1)");
    // The failures are counted, and PostgreSQL keeps the segments (.ready), losing nothing.
    await server.waitFor(`SELECT failed_count > ${before} FROM pg_stat_archiver`, "t", 150_000);
    expect(archived() < last).toBe(true);
    const failing = (await probeInstance(server.target, 10_000)).archiver!;
    expect(failing.failedCount).toBeGreaterThan(0);
    expect(failing.waiting).toBeGreaterThan(0);

    await store.restart();
    await server.waitFor(
      `SELECT last_archived_wal >= '${last}' FROM pg_stat_archiver`,
      "t",
      120_000,
    );
    expect(
      server.sql("SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready'"),
    ).toBe("0");
    // pgBackRest's own check: a WAL switch archived end to end, the repository consistent.
    pgbackrest(
      env,
      path.join(path.dirname(env.PGKEEPER_CONFIG_DIR), "db-0-config", "pgbackrest.conf"),
      "check",
    );
  });
});
