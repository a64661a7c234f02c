/**
 * Continuous WAL archiving into the local cluster's object store (versitygw, TLS with the cluster
 * CA): a 2-instance Database with spec.backup.objectStore archives through pgBackRest into
 * `<bucket>/<namespace>/<name>/<uid>`, says so in ContinuousArchiving, and after a failover the
 * promoted instance archives its new timeline into the same repository. A Database restored from
 * a backup taken before the failover replays across the timeline switch to the end.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { database, operatorSuite } from "../integration/harness/fixtures";
import { create, get, kubectlOk, list } from "../integration/harness/kubectl";
import { Operator } from "../integration/harness/operator";
import { waitFor } from "../integration/harness/wait";
import type { BackupStatus } from "../../capabilities/database/api/backup-schema";
import { backUp } from "./backups";
import { diagnosed } from "./diagnosis";
import {
  createStoreSecrets,
  freezeStore,
  localObjectStore,
  pgbackrestIn,
  rootKeys,
  S3,
} from "./object-store";
import { appCredentials, psql, superuserAt } from "./psql";

const operator = new Operator("e2e-archive");
let ns: string;
operatorSuite(operator, "e2e-archive", created => (ns = created));

const DB = "arch";
/** Keys under `prefix` in the bucket, listed from the host with a signed S3 request. */
function listKeys(prefix: string): string[] {
  const keys = rootKeys();
  const auth = path.join(tmpdir(), `pgk-e2e-s3-${process.pid}.curlrc`);
  writeFileSync(auth, `user = "${keys.id}:${keys.secret}"\n`, { mode: 0o600 });
  try {
    const xml = execFileSync(
      "curl",
      [
        ...["-fsS", "--max-time", "10", "--cacert", S3.ca, "-K", auth],
        ...["--aws-sigv4", "aws:amz:us-east-1:s3", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"],
        `https://${S3.hostEndpoint}/${S3.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`,
      ],
      { encoding: "utf8", maxBuffer: 4 * 1024 * 1024 },
    );
    return [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map(m => m[1]);
  } finally {
    rmSync(auth, { force: true });
  }
}

type Status = {
  phase?: string;
  currentPrimary?: string;
  conditions?: { type: string; status: string; reason: string; message: string }[];
};
const status = (): Status => (get("database", ns, DB)?.status ?? {}) as Status;
const archiving = () => status().conditions?.find(c => c.type === "ContinuousArchiving");

/** Backed up every minute; retention 1 and two backups: the first expired by the second. */
const SCHEDULED = "sched";
const RETAINED = 1;

describe("continuous WAL archiving into the local object store", () => {
  // The later tests' Databases start with the first one's: the scheduled one backs up while the
  // failover test runs, so its test finds its backups made rather than waiting minutes of cron
  // for them (it is checked before the store's outage, which would fail a backup due then), and
  // the outage's is Ready by its turn.
  beforeAll(() => {
    expect(S3.endpoint).not.toBe("");
    createStoreSecrets(ns);
    create(
      database(ns, SCHEDULED, {
        instances: 1,
        backup: { objectStore: localObjectStore(), schedule: "* * * * *", retention: RETAINED },
      }),
    );
    create(
      database(ns, "outage", {
        instances: 1,
        backup: { objectStore: localObjectStore(), archiveTimeoutSeconds: 5 },
      }),
    );
  });

  it("archives into the Database's own path and goes on on the new timeline after a failover", async () => {
    expect(S3.endpoint).not.toBe("");
    create(
      database(ns, DB, {
        instances: 2,
        backup: { objectStore: localObjectStore(), archiveTimeoutSeconds: 5 },
      }),
    );
    await diagnosed(
      waitFor("the Database Ready", () => status().phase === "Ready", {
        timeoutMs: 300_000,
        intervalMs: 2000,
      }),
      ns,
      DB,
      operator.logFile,
    );
    const uid = get("database", ns, DB)!.metadata.uid!;
    const repository = `${ns}/${DB}/${uid}/archive/db/`;
    const creds = appCredentials(ns, DB);
    await waitFor("SQL through -rw", () => psql(creds, "select 1") === "1", { timeoutMs: 60_000 });
    psql(creds, "create table t as select g from generate_series(1, 10000) g");
    await diagnosed(
      waitFor("ContinuousArchiving True", () => archiving()?.status === "True", {
        timeoutMs: 120_000,
        intervalMs: 1000,
      }),
      ns,
      DB,
      operator.logFile,
    );
    const before = listKeys(repository);
    expect(before.some(k => k.endsWith("archive.info"))).toBe(true);
    expect(before.some(k => /\/000000010000000000000001-[0-9a-f]+\.gz$/.test(k))).toBe(true);

    const primary = status().currentPrimary!;
    const standby = [0, 1].map(i => `${DB}-${i}`).find(p => p !== primary)!;
    // A base backup before the failover, for the restore below: a Backup object, taken by a Job
    // copying from the standby through the sidecars' TLS servers, then verified.
    const taken = await backUp(ns, DB, "before-failover", { verify: true });
    expect(taken).toMatchObject({
      phase: "Completed",
      type: "full",
      instance: standby,
      verified: true,
      repositoryPath: `/${ns}/${DB}/${uid}`,
      label: expect.stringMatching(/^\d{8}-\d{6}F$/),
      beginLSN: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/),
      endWAL: expect.stringMatching(/^0{7}1[0-9A-F]{16}$/),
    });
    expect(taken.sizeBytes).toBeGreaterThan(0);
    expect(taken.firstRecoverabilityPoint).toBe(taken.stoppedAt); // the only backup
    await waitFor(
      "the Database's status to name the backup",
      () => {
        const s = status() as Status & {
          lastSuccessfulBackup?: { name: string; label: string };
          firstRecoverabilityPoint?: string;
        };
        const ok = s.conditions?.find(c => c.type === "BackupSucceeded")?.status === "True";
        return (
          ok &&
          s.lastSuccessfulBackup?.label === taken.label &&
          s.firstRecoverabilityPoint === taken.stoppedAt
        );
      },
      { timeoutMs: 30_000 },
    );
    const info = JSON.parse(pgbackrestIn(ns, primary, "info", "--output=json")) as {
      backup: { label: string }[];
    }[];
    expect(info[0].backup.map(b => b.label)).toEqual([taken.label]);
    kubectlOk(["delete", "pod", primary, "-n", ns, "--wait=false"]);
    const promoted = await waitFor(
      "a new primary",
      () => (status().currentPrimary !== primary ? status().currentPrimary : undefined),
      { timeoutMs: 120_000 },
    );
    const newPrimary = get("pod", ns, promoted!)!;
    await waitFor(
      "a write on the new primary",
      () => {
        try {
          psql(
            superuserAt(ns, DB, newPrimary),
            "create table if not exists after_failover as select 1; select pg_switch_wal()",
          );
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: 60_000 },
    );
    await waitFor(
      "the new timeline's history file and a segment of it in the repository",
      () => {
        const now = listKeys(repository);
        return (
          now.some(k => k.endsWith("/00000002.history")) &&
          now.some(k => /\/00000002[0-9A-F]{16}-[0-9a-f]+\.gz$/.test(k))
        );
      },
      { timeoutMs: 120_000, intervalMs: 2000 },
    );
    expect(archiving()?.status).toBe("True");

    // Restored from the backup taken on timeline 1 to the end of the archive: recovery follows
    // the switch to timeline 2 and holds what was written after the failover.
    const repositoryPath = (
      get("database", ns, DB)!.status as { backup: { repositoryPath: string } }
    ).backup.repositoryPath;
    create(
      database(ns, "after", {
        instances: 1,
        bootstrap: {
          recovery: { source: { objectStore: localObjectStore(), repositoryPath } },
        },
      }),
    );
    await diagnosed(
      waitFor(
        "the restored Database Ready",
        () => get("database", ns, "after")?.status?.phase === "Ready",
        {
          timeoutMs: 420_000,
          intervalMs: 2000,
        },
      ),
      ns,
      "after",
      operator.logFile,
    );
    const restored = superuserAt(ns, "after", get("pod", ns, "after-0")!);
    await waitFor(
      "SQL on the restored primary",
      () => {
        try {
          return psql(restored, "select 1") === "1";
        } catch {
          return false;
        }
      },
      { timeoutMs: 60_000 },
    );
    expect(psql(restored, "select count(*) from after_failover")).toBe("1");
    expect(
      Number(psql(restored, "select timeline_id from pg_control_checkpoint()")),
    ).toBeGreaterThan(2);
  }, 1_200_000);

  it("backs up on schedule into Backup objects, keeps exactly the retained number, and outlives its Database", async () => {
    const name = SCHEDULED;
    type Backup = { metadata: { name: string }; spec: { database: string }; status?: BackupStatus };
    const backups = () =>
      (list("backup", ns) as unknown as Backup[]).filter(b => b.spec.database === name);
    const completed = () => backups().filter(b => b.status?.phase === "Completed");
    await diagnosed(
      waitFor("two scheduled backups Completed", () => completed().length > RETAINED, {
        timeoutMs: 480_000,
        intervalMs: 5000,
      }),
      ns,
      name,
      operator.logFile,
    );
    // Stop the schedule and let what it queued finish, so the count below is final.
    kubectlOk([
      ...["patch", "database", name, "-n", ns, "--type", "json"],
      ...["-p", '[{"op":"remove","path":"/spec/backup/schedule"}]'],
    ]);
    await waitFor(
      "every Backup finished",
      () => backups().every(b => ["Completed", "Failed"].includes(b.status?.phase ?? "")),
      { timeoutMs: 300_000, intervalMs: 5000 },
    );
    expect(backups().filter(b => b.status?.phase === "Failed")).toEqual([]);
    for (const b of backups()) {
      expect(b.metadata.name).toMatch(new RegExp(`^${name}-\\d{12}$`));
    }
    // pgBackRest expired all but the newest full backup, and the WAL only older ones needed.
    const info = JSON.parse(pgbackrestIn(ns, `${name}-0`, "info", "--output=json")) as {
      backup: { label: string; type: string }[];
    }[];
    const newest = completed()
      .map(b => b.status!)
      .sort((a, b) => (a.stoppedAt ?? "").localeCompare(b.stoppedAt ?? ""))
      .slice(-RETAINED)
      .map(s => s.label);
    expect(info[0].backup.map(b => b.label)).toEqual(newest);
    expect(info[0].backup.every(b => b.type === "full")).toBe(true);
    const db = get("database", ns, name)!.status as { firstRecoverabilityPoint?: string };
    const oldestKept = completed().find(b => b.status?.label === newest[0])!.status!.stoppedAt;
    expect(db.firstRecoverabilityPoint).toBe(oldestKept);

    // Deleting the Database leaves its Backups and its repository.
    const uid = get("database", ns, name)!.metadata.uid!;
    const count = backups().length;
    kubectlOk(["delete", "database", name, "-n", ns, "--wait=true", "--timeout=120s"]);
    expect(backups().length).toBe(count);
    // (Listed by the file's own prefix: a listing stops at 1,000 keys, and the backups' files sort first.)
    expect(listKeys(`${ns}/${name}/${uid}/backup/db/backup.info`)).toContain(
      `${ns}/${name}/${uid}/backup/db/backup.info`,
    );
  }, 1_200_000);

  it("says when the store stops answering, keeps every segment, and archives them all once it is back", async () => {
    const statusOf = () => (get("database", ns, "outage")?.status ?? {}) as Status;
    const condition = () => statusOf().conditions?.find(c => c.type === "ContinuousArchiving");
    await diagnosed(
      waitFor("outage Ready", () => statusOf().phase === "Ready", {
        timeoutMs: 300_000,
        intervalMs: 2000,
      }),
      ns,
      "outage",
      operator.logFile,
    );
    const superuser = superuserAt(ns, "outage", get("pod", ns, "outage-0")!);
    const sql = (query: string) => psql(superuser, query);
    await waitFor(
      "SQL on the primary",
      () => {
        try {
          return sql("select 1") === "1";
        } catch {
          return false;
        }
      },
      { timeoutMs: 60_000 },
    );
    sql("create table t (g int)");
    await waitFor("ContinuousArchiving True", () => condition()?.status === "True", {
      timeoutMs: 120_000,
      intervalMs: 1000,
    });

    freezeStore(true);
    let last = "";
    try {
      for (let i = 0; i < 3; i++) {
        sql(`insert into t select generate_series(1, 1000); select pg_switch_wal()`);
      }
      last = sql("select pg_walfile_name(pg_current_wal_lsn() - 1)");
      await diagnosed(
        waitFor("ContinuousArchiving False", () => condition()?.status === "False", {
          timeoutMs: 240_000,
          intervalMs: 2000,
        }),
        ns,
        "outage",
        operator.logFile,
      );
      expect(condition()?.reason).toBe("ArchiveFailing");
      expect(condition()?.message).toMatch(
        /segment\(s\) \(\d+ MiB\) wait in pg_wal, kept until archived/,
      );
      await waitFor(
        "an ArchiveFailing Warning",
        () => list("event", ns).some(e => (e as { reason?: string }).reason === "ArchiveFailing"),
        { timeoutMs: 60_000 },
      );
      // PostgreSQL keeps them: nothing is lost while the store is away.
      expect(
        Number(sql("select count(*) from pg_ls_archive_statusdir() where name like '%.ready'")),
      ).toBeGreaterThan(0);
    } finally {
      freezeStore(false);
    }
    await waitFor(
      "every segment written during the outage archived",
      () => sql(`select last_archived_wal >= '${last}' from pg_stat_archiver`) === "t",
      { timeoutMs: 240_000, intervalMs: 2000 },
    );
    await waitFor("ContinuousArchiving True again", () => condition()?.status === "True", {
      timeoutMs: 120_000,
      intervalMs: 1000,
    });
    // pgBackRest's own checks: archiving works end to end, and the archive has no gap.
    pgbackrestIn(ns, "outage-0", "check");
    pgbackrestIn(ns, "outage-0", "verify");
  }, 900_000);
});
