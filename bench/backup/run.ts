/**
 * bench/backup (run.sh says how to run it). Prints figures and writes them as JSON
 * (bench/lib/result.ts); asserts nothing about speed. BENCH_SMOKE=1 (or --smoke): 4 MB and 3 s
 * of commits, the same steps.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import type { ResolvedRecovery } from "../../capabilities/database/api/defaults";
import { recoveryFiles } from "../../capabilities/database/specs/recovery";
import {
  archiveConfig,
  archivingPrimary,
  pgbackrest,
  pgbackrestEnv,
  storeSettings,
} from "../../test/postgres/harness/archiving";
import { Cluster } from "../../test/postgres/harness/cluster";
import { credentialFiles } from "../../test/postgres/harness/credentials";
import { recoveryEntrypointFor, waitForLog } from "../../test/postgres/harness/entrypoint";
import { ObjectStore } from "../../test/postgres/harness/object-store";
import { bin } from "../../test/postgres/harness/os";
import { PgServer } from "../../test/postgres/harness/server";
import { isSmoke, runStart, saveResult } from "../lib/result";
import type { BackupFigures, BackupParameters, BackupRun } from "../report/backup";
import { runMain } from "../lib/main";

const SMOKE = isSmoke();
const MB = Number(process.env.BACKUP_BENCH_MB ?? (SMOKE ? 4 : 512));
const RPO_SECONDS = Number(process.env.BACKUP_BENCH_RPO_SECONDS ?? (SMOKE ? 3 : 60));
const ARCHIVE_TIMEOUT = 5;
const SOURCE = { namespace: "bench", name: "orders", uid: "uid-source" };
const RESTORED = { namespace: "bench", name: "restored", uid: "uid-restored" };

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
const mib = (bytes: number) => bytes / 2 ** 20;
const fixed = (n: number, digits = 1) => n.toFixed(digits);

/** The three pgBackRest backups, each compared with pg_basebackup's copy of the same data. */
const RUNS: (Omit<BackupRun, "seconds" | "storedBytes"> & { name: string; args: string[] })[] = [
  { name: "pgBackRest full, gz (default), 1 process", compress: "gz", processMax: 1, args: [] },
  {
    name: "pgBackRest full, gz, process-max 2",
    compress: "gz",
    processMax: 2,
    args: ["--process-max=2"],
  },
  {
    name: "pgBackRest full, lz4, process-max 2",
    compress: "lz4",
    processMax: 2,
    args: ["--process-max=2", "--compress-type=lz4"],
  },
];

async function main(): Promise<void> {
  const start0 = runStart();
  const cluster = new Cluster();
  const store = await ObjectStore.start();
  try {
    const source = await archivingPrimary(cluster, store, "orders-0", SOURCE);
    const server = source.server;
    // ~140 bytes per row on disk (tuple + md5 text + header), so MB * 7,500 rows.
    console.log(`loading ~${MB} MB ...`);
    server.sql(
      `CREATE TABLE big AS SELECT g, md5(g::text) || md5((g + 1)::text) AS v FROM generate_series(1, ${MB * 7500}) g`,
      3_600_000,
    );
    server.sql("CHECKPOINT", 600_000);
    await allArchived(server);
    const dbBytes = Number(server.sql("SELECT sum(pg_database_size(oid)) FROM pg_database"));
    console.log(`data: ${fixed(mib(dbBytes))} MiB (all databases)`);

    // Baseline: pg_basebackup of the same server to a local directory.
    const baseDir = path.join(cluster.ownedDir("basebackup"), "data");
    let start = process.hrtime.bigint();
    execFileSync(
      bin("pg_basebackup"),
      ["-h", server.socketDir, "-p", String(server.port), "-U", "postgres", "-D", baseDir],
      { ...cluster.account, stdio: "ignore", env: { PATH: process.env.PATH } },
    );
    const baseSeconds = seconds(start);

    const results: (BackupRun & { name: string })[] = [];
    for (const { name, args, compress, processMax } of RUNS) {
      start = process.hrtime.bigint();
      pgbackrest(
        cluster,
        source.env,
        source.conf,
        "backup",
        "--type=full",
        "--start-fast",
        ...args,
      );
      const took = seconds(start);
      const info = JSON.parse(
        pgbackrest(cluster, source.env, source.conf, "info", "--output=json"),
      );
      const last = info[0].backup.at(-1);
      results.push({
        name,
        compress,
        processMax,
        seconds: took,
        storedBytes: last.info.repository.delta,
      });
    }

    console.log("\nbase backup throughput (same data, same machine)");
    console.log(
      `  ${"pg_basebackup to a local directory (baseline)".padEnd(48)} ${fixed(baseSeconds)} s  ${fixed(mib(dbBytes) / baseSeconds)} MiB/s  ratio 1.00`,
    );
    for (const r of results)
      console.log(
        `  ${r.name.padEnd(48)} ${fixed(r.seconds)} s  ${fixed(mib(dbBytes) / r.seconds)} MiB/s  ratio ${fixed(baseSeconds / r.seconds, 2)}  (stored ${fixed(mib(r.storedBytes ?? NaN))} MiB)`,
      );

    // Restore: the newest backup (lz4) through the instance entrypoint, to the end of the archive.
    const restored = await cluster.unstarted("restored-0");
    const config = cluster.ownedDir("restored-0-config");
    const run = cluster.ownedDir("restored-0-run");
    const own = archiveConfig(cluster, store, config, RESTORED);
    const recovery: ResolvedRecovery = {
      source: {
        objectStore: {
          ...storeSettings(store),
          credentials: { secretName: "s3", accessKeyIdKey: "a", secretAccessKeyKey: "s" },
        },
        repositoryPath: source.repository,
      },
    };
    const ownEnv = pgbackrestEnv(cluster, store, restored, config, run);
    const launch = recoveryEntrypointFor(cluster, restored, recoveryFiles(recovery), {
      archiveScript: own.script,
      configDir: config,
      env: {
        ...ownEnv,
        ...credentialFiles(
          cluster,
          restored.name,
          {
            sourceS3Key: store.credentialsEnv.PGBACKREST_REPO1_S3_KEY,
            sourceS3KeySecret: store.credentialsEnv.PGBACKREST_REPO1_S3_KEY_SECRET,
          },
          ownEnv.PGKEEPER_CREDENTIALS_DIR,
        ),
        PGBACKREST_REPO1_STORAGE_CA_FILE: store.caFile,
      },
    });
    start = process.hrtime.bigint();
    await restored.start(3_600_000, launch);
    await waitForLog(restored, "Restored the database cluster from the backup", 3_600_000);
    const restoreSeconds = seconds(start);
    console.log(
      `\nrestore (bootstrap.recovery, end of archive): ${fixed(restoreSeconds)} s, ${fixed(mib(dbBytes) / restoreSeconds)} MiB/s`,
    );
    await restored.stop("fast");

    const figures: BackupFigures = {
      dataBytes: dbBytes,
      baselineSeconds: baseSeconds,
      pgbackrest: results.map(({ name: _name, ...run }) => run),
      restoreSeconds,
      rpo: await rpo(server),
    };
    const parameters: BackupParameters = {
      mb: MB,
      rpoSeconds: RPO_SECONDS,
      archiveTimeoutSeconds: ARCHIVE_TIMEOUT,
    };
    saveResult("backup", start0, parameters, figures, SMOKE);
  } finally {
    await cluster.destroy();
    await store.destroy();
  }
}

async function allArchived(server: PgServer): Promise<void> {
  const wal = server.sql("SELECT pg_walfile_name(pg_current_wal_lsn())");
  server.sql("SELECT pg_switch_wal()");
  await server.waitFor(`SELECT last_archived_wal >= '${wal}' FROM pg_stat_archiver`, "t", 600_000);
}

/**
 * The RPO without synchronous standbys: one row committed every 100 ms for RPO_SECONDS, with
 * archive_timeout = ARCHIVE_TIMEOUT; for each commit, the time until the segment holding it was
 * in the archive (what a restore could get back had the primary's volume been lost then).
 */
async function rpo(server: PgServer): Promise<BackupFigures["rpo"]> {
  server.sql(`ALTER SYSTEM SET archive_timeout = '${ARCHIVE_TIMEOUT}s'`);
  server.sql("SELECT pg_reload_conf()");
  server.sql(
    "CREATE TABLE ticks (id serial PRIMARY KEY, at timestamptz DEFAULT clock_timestamp())",
  );
  const commits: { at: number; wal: string }[] = [];
  const archived: { at: number; wal: string }[] = [];
  const end = Date.now() + RPO_SECONDS * 1000;
  let lastPoll = 0;
  while (Date.now() < end) {
    const wal = server.sql(
      "INSERT INTO ticks DEFAULT VALUES; SELECT pg_walfile_name(pg_current_wal_insert_lsn())",
    );
    commits.push({ at: Date.now(), wal: wal.split("\n").at(-1)! });
    if (Date.now() - lastPoll >= 100) {
      archived.push({
        at: Date.now(),
        wal: server.sql("SELECT coalesce(last_archived_wal, '') FROM pg_stat_archiver"),
      });
      lastPoll = Date.now();
    }
    await sleep(100);
  }
  const settle = Date.now() + (ARCHIVE_TIMEOUT + 30) * 1000;
  while (Date.now() < settle) {
    archived.push({
      at: Date.now(),
      wal: server.sql("SELECT coalesce(last_archived_wal, '') FROM pg_stat_archiver"),
    });
    if (archived.at(-1)!.wal >= commits.at(-1)!.wal) break;
    await sleep(100);
  }
  const delays = commits
    .map(c => (archived.find(a => a.at >= c.at && a.wal >= c.wal)?.at ?? NaN) - c.at)
    .filter(d => !isNaN(d))
    .sort((a, b) => a - b);
  const pct = (p: number) =>
    delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))];
  console.log(
    `\nRPO with archive_timeout = ${ARCHIVE_TIMEOUT} s, no synchronous standby (${commits.length} commits over ${RPO_SECONDS} s, ${delays.length} seen archived):`,
  );
  console.log(
    `  commit → in the archive: p50 ${fixed(pct(50) / 1000, 2)} s, p95 ${fixed(pct(95) / 1000, 2)} s, max ${fixed(delays.at(-1)! / 1000, 2)} s`,
  );
  return {
    commits: commits.length,
    seenArchived: delays.length,
    p50Ms: pct(50),
    p95Ms: pct(95),
    maxMs: delays.at(-1)!,
  };
}

runMain(main);
