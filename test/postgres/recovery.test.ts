/**
 * bootstrap.recovery as the first pod of a new Database runs it: the real entrypoint restores a
 * base backup taken by pgBackRest from a real S3-compatible store (versitygw), replays the
 * source's archive to the target through the real restore_command wrapper, promotes, and starts
 * archiving into its own repository. A restore that cannot succeed ends the container with the
 * reason and never initialises an empty database instead.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ResolvedRecovery } from "../../capabilities/database/api/defaults";
import { FILE_RESTORE_WAL } from "../../capabilities/database/specs/layout";
import { recoveryFiles } from "../../capabilities/database/specs/recovery";
import {
  archiveConfig,
  archivingPrimary,
  pgbackrest,
  pgbackrestEnv,
  Repository,
  storeSettings,
} from "./harness/archiving";
import { Cluster } from "./harness/cluster";
import { credentialFiles } from "./harness/credentials";
import { RESTORED_APP_PASSWORD, recoveryEntrypointFor, waitForLog } from "./harness/entrypoint";
import { ObjectStore } from "./harness/object-store";
import { bin } from "./harness/os";
import { PgServer } from "./harness/server";

jest.setTimeout(600_000);

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

const SOURCE: Repository = { namespace: "prod", name: "orders", uid: "uid-source" };
const RESTORED: Repository = { namespace: "prod", name: "orders-restored", uid: "uid-restored" };

/** The source: archiving, a full backup, then rows 1..n each committed alone. */
async function sourceWithBackup(): Promise<Awaited<ReturnType<typeof archivingPrimary>>> {
  const source = await archivingPrimary(cluster, store, "orders-0", SOURCE);
  source.server.sql("CREATE TABLE acks (id int PRIMARY KEY)");
  // The first archived segment creates the stanza (pgbackrest-archive.sh).
  source.server.sql("SELECT pg_switch_wal()");
  await source.server.waitFor("SELECT archived_count > 0 FROM pg_stat_archiver", "t", 120_000);
  pgbackrest(cluster, source.env, source.conf, "backup", "--type=full", "--start-fast");
  // pgBackRest picks the backup for a time target by its stop time, in whole seconds: the rows
  // that follow are written once the server's clock is past it.
  const info = JSON.parse(pgbackrest(cluster, source.env, source.conf, "info", "--output=json"));
  const stop = Number(info[0].backup.at(-1).timestamp.stop);
  await source.server.waitFor(
    `SELECT extract(epoch FROM clock_timestamp()) > ${stop + 1}`,
    "t",
    10_000,
  );
  return source;
}

const insert = (server: PgServer, from: number, to: number): void => {
  for (let id = from; id <= to; id++) server.sql(`INSERT INTO acks VALUES (${id})`);
};

/** Waits until every WAL written so far is in the archive. */
async function allArchived(server: PgServer): Promise<void> {
  const wal = server.sql("SELECT pg_walfile_name(pg_current_wal_lsn())");
  server.sql("SELECT pg_switch_wal()");
  await server.waitFor(`SELECT last_archived_wal >= '${wal}' FROM pg_stat_archiver`, "t", 120_000);
}

function recovery(target?: ResolvedRecovery["target"], repositoryPath?: string): ResolvedRecovery {
  const settings = storeSettings(store);
  return {
    source: {
      objectStore: {
        ...settings,
        credentials: {
          secretName: "s3",
          accessKeyIdKey: "accessKeyId",
          secretAccessKeyKey: "secretAccessKey",
        },
      },
      repositoryPath: repositoryPath ?? `/backups/${SOURCE.namespace}/${SOURCE.name}/${SOURCE.uid}`,
    },
    ...(target ? { target } : {}),
  };
}

/** The new Database's first pod, started by the entrypoint with bootstrap.recovery. */
async function restoredPod(spec: ResolvedRecovery, name = "restored-0") {
  const server = await cluster.unstarted(name);
  const config = cluster.ownedDir(`${name}-config`);
  const run = cluster.ownedDir(`${name}-run`);
  const own = archiveConfig(cluster, store, config, RESTORED);
  const ownEnv = pgbackrestEnv(cluster, store, server, config, run);
  const env = {
    ...ownEnv,
    // The source's keys beside this Database's own, as the pod's credentials volume has them.
    ...credentialFiles(
      cluster,
      name,
      {
        sourceS3Key: store.credentialsEnv.PGBACKREST_REPO1_S3_KEY,
        sourceS3KeySecret: store.credentialsEnv.PGBACKREST_REPO1_S3_KEY_SECRET,
      },
      ownEnv.PGKEEPER_CREDENTIALS_DIR,
    ),
    // The pod mounts the source's CA at SOURCE_CA_FILE; here it is the store's file.
    PGBACKREST_REPO1_STORAGE_CA_FILE: store.caFile,
  };
  const launch = recoveryEntrypointFor(cluster, server, recoveryFiles(spec), {
    archiveScript: own.script,
    configDir: config,
    env,
  });
  return { server, launch, own, env };
}

/** Runs the pod's entrypoint to its end (a restore that fails); returns its exit status. */
function runToExit(launch: { command: string; args: string[]; env: Record<string, string> }) {
  const log = openSync(path.join(cluster.root, "restored-0.log"), "a");
  try {
    return spawnSync(launch.command, launch.args, {
      ...cluster.account,
      stdio: ["ignore", log, log],
      timeout: 600_000,
      env: { PATH: process.env.PATH, LANG: "C", ...launch.env },
    }).status;
  } finally {
    closeSync(log);
  }
}

/** Polls until the server (after the entrypoint's exec) answers SQL. */
async function answering(server: PgServer, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (server.sql("SELECT 1") === "1") return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise(resolve => setTimeout(resolve, 200));
  }
}

describe("entrypoint.sh: a Database created from a backup (bootstrap.recovery)", () => {
  it("recovers to a time: every row committed before it, none after, on a new timeline, archiving to its own repository", async () => {
    const source = await sourceWithBackup();
    insert(source.server, 1, 10);
    // T between two acknowledgements, from the clock PostgreSQL stamps commits with.
    const target = source.server.sql(
      `SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    );
    insert(source.server, 11, 20);
    source.server.sql("DROP TABLE acks");
    await allArchived(source.server);
    const sourceArchive = pgbackrest(cluster, source.env, source.conf, "info", "--output=json");

    const { server, launch, own, env } = await restoredPod(recovery({ time: target }));
    await server.start(600_000, launch);
    await waitForLog(server, "Restored the database cluster from the backup", 600_000);
    await answering(server);

    expect(server.sql("SELECT string_agg(id::text, ',' ORDER BY id) FROM acks")).toBe(
      "1,2,3,4,5,6,7,8,9,10",
    );
    expect(server.sql("SELECT pg_is_in_recovery()")).toBe("f");
    expect(Number(server.sql("SELECT timeline_id FROM pg_control_checkpoint()"))).toBeGreaterThan(
      1,
    );
    // Writable, and the recovery settings are gone: nothing would stop a later standby at T.
    server.sql("INSERT INTO acks VALUES (100)");
    const auto = readFileSync(path.join(server.dataDir, "postgresql.auto.conf"), "utf8");
    expect(auto).not.toMatch(/restore_command|recovery_target/);
    // This Database's passwords, not the source's.
    const login = spawnSync(
      bin("psql"),
      ["-h", "127.0.0.1", "-p", String(server.port), "-U", "app", "-d", "app", "-XAtc", "SELECT 1"],
      { env: { PATH: process.env.PATH, PGPASSWORD: RESTORED_APP_PASSWORD } },
    );
    expect(login.status).toBe(0);
    // Archives into its own repository; the source's archive is untouched.
    await allArchived(server);
    pgbackrest(cluster, env, own.conf, "check");
    expect(pgbackrest(cluster, source.env, source.conf, "info", "--output=json")).toBe(
      sourceArchive,
    );
  });

  it("recovers to a named restore point and to an LSN, each exactly", async () => {
    const source = await sourceWithBackup();
    insert(source.server, 1, 3);
    source.server.sql("SELECT pg_create_restore_point('before migration')");
    insert(source.server, 4, 6);
    // The LSN after row 6's commit record, before row 7's.
    const lsn = source.server.sql("SELECT pg_current_wal_insert_lsn()");
    insert(source.server, 7, 9);
    await allArchived(source.server);

    const rows = async (target: ResolvedRecovery["target"], name: string) => {
      const { server, launch } = await restoredPod(recovery(target), name);
      await server.start(600_000, launch);
      await waitForLog(server, "Restored the database cluster from the backup", 600_000);
      await answering(server);
      const ids = server.sql("SELECT string_agg(id::text, ',' ORDER BY id) FROM acks");
      await server.stop("fast");
      return ids;
    };
    expect(await rows({ name: "before migration" }, "at-name-0")).toBe("1,2,3");
    expect(await rows({ lsn }, "at-lsn-0")).toBe("1,2,3,4,5,6");
  });

  it("refuses a target beyond the archive with PostgreSQL's reason, and never starts empty", async () => {
    const source = await sourceWithBackup();
    insert(source.server, 1, 3);
    await allArchived(source.server);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const { server, launch } = await restoredPod(recovery({ time: future }));
    expect(runToExit(launch)).toBe(1);
    expect(readFileSync(launch.terminationLog, "utf8")).toMatch(
      /PostgreSQL stopped while recovering: .*recovery ended before configured recovery target was reached/,
    );
    expect(existsSync(server.dataDir)).toBe(false);
  });

  it("refuses a repository that holds no backup, and never starts empty", async () => {
    await sourceWithBackup();
    const { server, launch } = await restoredPod(recovery(undefined, "/backups/prod/gone/uid-0"));
    expect(runToExit(launch)).toBe(1);
    expect(readFileSync(launch.terminationLog, "utf8")).toMatch(
      /^pgBackRest could not restore from the source repository: .*ERROR/,
    );
    expect(existsSync(server.dataDir)).toBe(false);
  });

  it("restore_command stops recovery when the store cannot be read, instead of ending it early", async () => {
    const source = await sourceWithBackup();
    const { launch } = await restoredPod(recovery());
    const script = path.join(launch.env.PGKEEPER_CONFIG_DIR, FILE_RESTORE_WAL);
    const destination = path.join(launch.env.PGKEEPER_RUN_DIR, "wal");
    const get = () =>
      spawnSync("/bin/sh", [script, "0000000100000000000000FE", destination], {
        ...cluster.account,
        // archive-get reads pg_control where the restored data is: here, the source's own.
        env: { PATH: process.env.PATH, ...launch.env, PGBACKREST_PG1_PATH: source.server.dataDir },
      }).status;
    expect(get()).toBe(1); // not in the archive: recovery ends there
    await store.stop();
    expect(get()).toBe(126); // PostgreSQL stops with a FATAL rather than promote
  });
});
