/**
 * Base backups as the backup host will take them: pgBackRest on a host with no data of its own
 * reaches the primary and a standby through their pgBackRest TLS servers (certificates from the
 * operator's own CA, lib/x509.ts), copies the data files from the standby, and stores the backup
 * in a real S3-compatible store, where `pgbackrest verify` checks it. The configurations are the operator's, with the pod's paths and ports replaced by the
 * test servers'.
 */
import { ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import path from "node:path";
import {
  backupHostConf,
  pgbackrestConf,
  PGBACKREST_TLS_PORT,
  tlsServerSection,
} from "../../capabilities/database/specs/pgbackrest";
import { PGDATA, POSTGRES_PORT, RUN_DIR } from "../../capabilities/database/specs/layout";
import { backupTlsMaterial } from "../../capabilities/database/pki/backup-tls";
import { issueCa } from "../../capabilities/database/pki/certificates";
import { BACKUP_JOB_SH } from "../../capabilities/database/specs/scripts/backup-job";
import { archivingPrimary, pgbackrest, Repository, storeSettings } from "./harness/archiving";
import { Cluster } from "./harness/cluster";
import { ObjectStore } from "./harness/object-store";
import { freePort } from "./harness/os";
import { PgServer } from "./harness/server";

jest.setTimeout(600_000);

let cluster: Cluster;
let store: ObjectStore;
const servers: ChildProcess[] = [];
beforeEach(async () => {
  cluster = new Cluster();
  store = await ObjectStore.start();
});
afterEach(async () => {
  for (const s of servers.splice(0)) s.kill("SIGTERM");
  await cluster.destroy();
  await store?.destroy(); // absent when it did not start
});

const DB: Repository = { namespace: "prod", name: "orders", uid: "uid-1" };

/** The Database's CA and certificates as the operator issues them, for these addresses. */
function pki(dir: string, hosts: string[]) {
  const now = new Date();
  const tls = backupTlsMaterial(undefined, issueCa("orders", now), hosts, now).tls;
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    cluster.writeOwned(file, text);
    return file;
  };
  expect(new X509Certificate(tls.serverCert).checkIssued(new X509Certificate(tls.ca))).toBe(true);
  return {
    server: {
      ca: write("ca.crt", tls.ca),
      cert: write("server.crt", tls.serverCert),
      key: write("server.key", tls.serverKey),
    },
    client: {
      ca: write("ca.crt", tls.ca),
      cert: write("client.crt", tls.clientCert),
      key: write("client.key", tls.clientKey),
    },
  };
}

/** The pod's paths and port in a rendered configuration, replaced by a test server's. */
const forServer = (conf: string, server: PgServer, n = 1) =>
  conf
    .replaceAll(`pg${n}-path=${PGDATA}`, `pg${n}-path=${server.dataDir}`)
    .replaceAll(`pg${n}-socket-path=${RUN_DIR}`, `pg${n}-socket-path=${server.socketDir}`)
    .replaceAll(`pg${n}-port=${POSTGRES_PORT}`, `pg${n}-port=${server.port}`);

/** `pgbackrest server` for one instance, as its sidecar runs it. */
async function tlsServer(
  server: PgServer,
  address: string,
  tls: { ca: string; cert: string; key: string },
) {
  const port = await freePort();
  const conf = path.join(cluster.ownedDir(`${server.name}-tls-server`), "pgbackrest.conf");
  const rendered =
    forServer(pgbackrestConf(storeSettings(store), "/unused"), server) +
    "\n" +
    tlsServerSection(tls)
      .replace("tls-server-address=*", `tls-server-address=${address}`)
      .replace(`tls-server-port=${PGBACKREST_TLS_PORT}`, `tls-server-port=${port}`);
  cluster.writeOwned(conf, rendered);
  const proc = spawn("pgbackrest", [`--config=${conf}`, "server"], {
    ...cluster.account,
    stdio: "ignore",
    env: {
      PATH: process.env.PATH,
      PGBACKREST_LOCK_PATH: cluster.ownedDir(`${server.name}-tls-lock`),
    },
  });
  servers.push(proc);
  return port;
}

describe("base backups through pgBackRest's TLS servers", () => {
  it("copies the data files from a standby with the operator's certificates, and pgBackRest verifies the backup", async () => {
    const source = await archivingPrimary(cluster, store, "orders-0", DB);
    source.server.sql("CREATE TABLE t AS SELECT g FROM generate_series(1, 50000) g");
    source.server.sql("SELECT pg_switch_wal()");
    await source.server.waitFor("SELECT archived_count > 0 FROM pg_stat_archiver", "t", 120_000);
    const standby = await cluster.standby(source.server, "orders-1");
    // Two loopback addresses stand for two pods; the certificate names them.
    const tls = pki(cluster.ownedDir("pki"), ["127.0.0.1", "127.0.0.2"]);
    const primaryPort = await tlsServer(source.server, "127.0.0.1", tls.server);
    const standbyPort = await tlsServer(standby, "127.0.0.2", tls.server);

    const conf = forServer(
      forServer(
        backupHostConf(storeSettings(store), source.repository, {
          hosts: ["127.0.0.1", "127.0.0.2"],
          fromStandby: true,
          retentionFull: 2,
          tls: tls.client,
        }),
        source.server,
        1,
      ),
      standby,
      2,
    )
      .replace(`pg1-host-port=${PGBACKREST_TLS_PORT}`, `pg1-host-port=${primaryPort}`)
      .replace(`pg2-host-port=${PGBACKREST_TLS_PORT}`, `pg2-host-port=${standbyPort}`);
    const hostConf = path.join(cluster.ownedDir("backup-host"), "pgbackrest.conf");
    cluster.writeOwned(hostConf, conf);
    const env = { ...store.credentialsEnv, PGBACKREST_LOCK_PATH: cluster.ownedDir("backup-lock") };
    // The servers may take a moment to listen; pgBackRest retries nothing, so poll `check`.
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        pgbackrest(cluster, env, hostConf, "check");
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise(resolve => setTimeout(resolve, 500));
      }
    }
    const output = pgbackrest(cluster, env, hostConf, "backup", "--type=full");
    expect(output).toMatch(/wait for replay on the standby to reach/);
    const info = JSON.parse(pgbackrest(cluster, env, hostConf, "info", "--output=json"));
    const backup = info[0].backup.at(-1);
    expect(backup.type).toBe("full");
    expect(backup.error).toBe(false);
    expect(backup.info.size).toBeGreaterThan(1_000_000);
    pgbackrest(cluster, env, hostConf, "verify");
  });

  it("runs the Job's script: retention by days keeps every full backup a restore to any point of them needs, beyond the count", async () => {
    const source = await archivingPrimary(cluster, store, "orders-0", DB);
    source.server.sql("CREATE TABLE t AS SELECT g FROM generate_series(1, 1000) g");
    source.server.sql("SELECT pg_switch_wal()");
    await source.server.waitFor("SELECT archived_count > 0 FROM pg_stat_archiver", "t", 120_000);
    const work = cluster.ownedDir("backup-job");
    const result = path.join(work, "result.json");
    /** The Job's script as the backup host; retention 1 full backup, and 1 day. */
    const backupJob = (now?: number): { label: string; oldestStop: number } => {
      const run = spawnSync("/bin/sh", ["-c", BACKUP_JOB_SH], {
        ...cluster.account,
        encoding: "utf8",
        env: {
          PATH: process.env.PATH,
          ...source.env,
          PGKEEPER_PGBACKREST_CONF: readFileSync(source.conf, "utf8"),
          PGKEEPER_WORK_DIR: work,
          PGKEEPER_RESULT_FILE: result,
          PGKEEPER_RETENTION_FULL: "1",
          PGKEEPER_RETENTION_DAYS: "1",
          ...(now === undefined ? {} : { PGKEEPER_NOW: String(now) }),
          // As backupHostConf renders them with retentionDays.
          PGBACKREST_REPO1_RETENTION_FULL: "9999999",
          PGBACKREST_START_FAST: "y",
          PGBACKREST_LOG_LEVEL_CONSOLE: "info",
          PGBACKREST_LOG_LEVEL_STDERR: "off",
        },
      });
      // On failure, the script's last words (pgBackRest's output) say why.
      expect({
        status: run.status,
        tail:
          run.status === 0
            ? ""
            : `${run.error ?? ""} ${run.stdout.slice(-1000)} ${run.stderr.slice(-500)} ${existsSync(result) ? readFileSync(result, "utf8") : ""}`,
      }).toEqual({
        status: 0,
        tail: "",
      });
      return JSON.parse(readFileSync(result, "utf8"));
    };
    const fulls = (): { label: string; stop: number }[] =>
      (
        JSON.parse(pgbackrest(cluster, source.env, source.conf, "info", "--output=json"))[0]
          .backup as { label: string; type: string; timestamp: { stop: number } }[]
      ).map(b => ({ label: b.label, stop: b.timestamp.stop }));
    /** Each backup stops in a later second than the one before (labels and stops are seconds). */
    const afterLast = () =>
      source.server.waitFor(
        `SELECT extract(epoch FROM clock_timestamp()) > ${Math.max(0, ...fulls().map(b => b.stop)) + 1}`,
        "t",
        10_000,
      );

    for (let i = 0; i < 3; i++) {
      await afterLast();
      backupJob();
    }
    // All three ended within the day: kept, although the count alone would keep one.
    const three = fulls();
    expect(three).toHaveLength(3);

    // A day after the third ended: the third and the new one are within the day, and the second
    // is the newest before it (a restore to the day's start replays from it); the first goes.
    await afterLast();
    const fourth = backupJob(three[2].stop + 86400);
    expect(fulls().map(b => b.label)).toEqual([three[1].label, three[2].label, fourth.label]);
    expect(fourth.oldestStop).toBe(three[1].stop);
  });
});
