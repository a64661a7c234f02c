/**
 * A backup running during a failover, in quorum mode (issue 13): a 3-instance Database with a few
 * hundred MB archives into the local object store under the acknowledging write load of the HA
 * suite; a Backup copies from a standby, and the primary's pod is deleted while pgBackRest is
 * copying. What must hold:
 *
 * - the failover is the usual one: a new primary, writes acknowledged again, every instance
 *   streaming, never two writable instances, no acknowledged row lost;
 * - the interrupted Backup ends truthfully, within a bound: Failed with pgBackRest's reason, or
 *   Completed and verifiable; never Running or Pending for ever;
 * - the next Backup (verified) completes on the new timeline, and archiving goes on;
 * - a Database restored from the repository to the end of the archive holds every acknowledged
 *   row.
 */
import type { BackupStatus } from "../../capabilities/database/api/backup-schema";
import { BACKUP_JOB_CONTAINER, LABEL_BACKUP } from "../../capabilities/database/specs/backup-job";
import { database, operatorSuite } from "../integration/harness/fixtures";
import { create, get, kubectl, kubectlOk, list, Obj } from "../integration/harness/kubectl";
import { Operator } from "../integration/harness/operator";
import { waitFor } from "../integration/harness/wait";
import { backUp } from "./backups";
import { diagnosed } from "./diagnosis";
import { healthy as waitHealthy } from "./healthy";
import { faultTable } from "./fault-matrix";
import { Load, loadWriters } from "./load";
import { missingAcknowledgedRows, RowCheck } from "./load/rows";
import { createStoreSecrets, localObjectStore, pgbackrestIn, S3 } from "./object-store";
import { appCredentials, Credentials, psql, superuserAt } from "./psql";

const operator = new Operator("e2e-backup-failover");
let ns: string;
operatorSuite(operator, "e2e-backup-failover", created => (ns = created));

const DB = "bf";
/**
 * Rows of 1000 random bytes (incompressible: pgBackRest's gzip cannot shortcut them). 300,000
 * made a 342 MB database that a full backup from a standby copied in 55-60 s on the 2-core VM
 * under the write load (2026-12-02); the fault lands 1-3 s after the copy is seen starting, so
 * 200,000 (about 230 MB, some 35 s of copying) keep a wide margin in less time.
 */
const BULK_ROWS = 200_000;
const STORAGE = { size: "2Gi" };
const INTERRUPTED = "during-failover";
const AFTER = "after-failover";
/** How long the interrupted Backup may take, from the primary's loss, to say how it ended. */
const INTERRUPTED_ENDS_WITHIN_MS = 180_000;

interface InstanceStatus {
  name: string;
  role: string;
  ready: boolean;
  streaming?: boolean;
  timeline?: number;
}
interface Status {
  phase?: string;
  currentPrimary?: string;
  instances?: InstanceStatus[];
  backup?: { repositoryPath?: string };
  lastSuccessfulBackup?: { name: string; label?: string };
  conditions?: { type: string; status: string; reason: string; message: string }[];
}
const status = (name = DB): Status => (get("database", ns, name)?.status ?? {}) as Status;
const condition = (type: string) => status().conditions?.find(c => c.type === type);
const backupStatus = (name: string): BackupStatus =>
  (get("backup", ns, name)?.status ?? {}) as BackupStatus;
const podIp = (name: string): string =>
  String((get("pod", ns, name)?.status as { podIP?: string } | undefined)?.podIP);
const jobPodOf = (backup: string): Obj | undefined =>
  list("pod", ns, `${LABEL_BACKUP}=${backup}`)[0];
const podPhase = (pod: { status?: Record<string, unknown> } | undefined): string | undefined =>
  (pod?.status as { phase?: string } | undefined)?.phase;

/** Every instance of `name` ready, the replicas streaming, status agreeing. */
const healthy = (name: string, instances: number, timeoutMs?: number): Promise<Status> =>
  waitHealthy<Status>(ns, name, instances, operator.logFile, timeoutMs);

/** The superuser on one instance (by its pod's IP), in the app database. */
const superuserApp = (db: string, pod: string): Credentials => ({
  ...superuserAt(ns, db, get("pod", ns, pod)!),
  dbname: appCredentials(ns, DB).dbname,
});

/**
 * What pgBackRest printed so far in the backup Job (its script keeps the output in a file until
 * the command ends): the last lines only.
 */
function backupProgress(pod: string): string {
  const r = kubectl([
    ...["exec", "-n", ns, pod, "-c", BACKUP_JOB_CONTAINER, "--"],
    ...["tail", "-n", "20", "/tmp/pgbackrest.out"],
  ]);
  return r.code === 0 ? r.stdout : "";
}

/**
 * Labels of backups being copied, listed in the repository from an instance: pgBackRest saves
 * `<label>/backup.manifest.copy` just before it copies the first file, and `backup.manifest`
 * only once the backup is stopped.
 */
function copyingInRepository(instance: string): string[] {
  const names = pgbackrestIn(ns, instance, "repo-ls", "--recurse", "--filter=manifest", "backup/db")
    .split("\n")
    .filter(Boolean);
  return names
    .filter(n => n.endsWith("/backup.manifest.copy"))
    .map(n => n.split("/")[0])
    .filter(label => !names.includes(`${label}/backup.manifest`));
}

/** WAL segments the primary has yet to archive. */
const archiveBacklog = (c: Credentials): number =>
  Number(psql(c, "select count(*) from pg_ls_archive_statusdir() where name like '%.ready'"));

const expectNoneMissing = (check: RowCheck): void => {
  expect(check.acknowledged).toBeGreaterThan(0);
  expect(check.sample).toEqual([]);
  expect(check.missing).toBe(0);
};

let load: Load;
let interrupted: Promise<BackupStatus>;
/** The primary's pod deleted: when, which one, and the Backup as it was just before. */
let kill: { at: number; primary: string; copiedFrom: string; label: string; phaseBefore?: string };

describe("a backup running during a failover in quorum mode", () => {
  beforeAll(async () => {
    expect(S3.endpoint).not.toBe("");
    createStoreSecrets(ns);
    create(
      database(ns, DB, {
        instances: 3,
        storage: STORAGE,
        postgresql: { synchronous: { mode: "quorum", number: 1 } },
        backup: { objectStore: localObjectStore(), archiveTimeoutSeconds: 5 },
      }),
    );
    const s = await healthy(DB, 3, 420_000);
    const creds = appCredentials(ns, DB);
    await waitFor("SQL through -rw", () => psql(creds, "select 1") === "1", { timeoutMs: 60_000 });
    const t = Date.now();
    const primary = superuserApp(DB, s.currentPrimary!);
    psql(primary, "create extension if not exists pgcrypto");
    psql(
      primary,
      `create table bulk as select g as id, gen_random_bytes(1000) as pad from generate_series(1, ${BULK_ROWS}) g`,
      300_000,
    );
    const size = psql(primary, "select pg_size_pretty(pg_database_size(current_database()))");
    console.log(`${BULK_ROWS} rows written in ${Date.now() - t} ms: the database is ${size}`);
    psql(creds, "create table load (id bigint primary key, at timestamptz default now())");
    await diagnosed(
      waitFor(
        "ContinuousArchiving True",
        () => condition("ContinuousArchiving")?.status === "True",
        {
          timeoutMs: 180_000,
          intervalMs: 1000,
        },
      ),
      ns,
      DB,
      operator.logFile,
    );
    load = new Load(ns, DB);
    load.start();
    await waitFor("the first acknowledged writes", () => load.acknowledged() > 20, {
      timeoutMs: 60_000,
    });
  }, 900_000);

  afterAll(async () => {
    await load?.stop();
    // A failed test before the Backup's end was awaited must not leave its rejection unhandled.
    await interrupted?.catch(() => undefined);
  }, 400_000);

  it("fails over while pgBackRest copies from a standby: one writable instance, no acknowledged row lost", async () => {
    const primary = status().currentPrimary!;
    const oldIp = podIp(primary);
    // Any instance can list the repository.
    const witness = status().instances!.find(i => i.role !== "primary")!.name;
    // The bulk load's WAL archived first: the backup then copies at once instead of waiting for
    // the segment before its start, and the old primary has nothing left to archive as it stops.
    const primarySql = superuserApp(DB, primary);
    await waitFor("the archive caught up", () => archiveBacklog(primarySql) === 0, {
      timeoutMs: 180_000,
      intervalMs: 1000,
    });
    // The helper creates the Backup and polls it until Completed or Failed, within its own bound.
    interrupted = backUp(ns, DB, INTERRUPTED);
    interrupted.catch(() => undefined); // awaited in the next test
    type Seen = { ended: BackupStatus } | { status: BackupStatus; pod: string; label: string };
    const seen = await diagnosed(
      waitFor<Seen>(
        `Backup ${INTERRUPTED} copying files from a standby`,
        () => {
          const b = backupStatus(INTERRUPTED);
          if (b.phase === "Completed" || b.phase === "Failed") return { ended: b };
          const pod = jobPodOf(INTERRUPTED);
          if (!pod || b.phase !== "Running" || podPhase(pod) !== "Running") return undefined;
          // pgBackRest started the backup on the primary and the standby replayed to its start;
          // it has not stopped it yet.
          const out = backupProgress(pod.metadata.name);
          if (!out.includes("replay on the standby reached") || out.includes("backup stop"))
            return undefined;
          const [label] = copyingInRepository(witness);
          return label ? { status: b, pod: pod.metadata.name, label } : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 500 },
      ),
      ns,
      DB,
      operator.logFile,
    );
    if ("ended" in seen)
      throw new Error(
        `Backup ${INTERRUPTED} ended (${seen.ended.phase}: ${seen.ended.message}) before its copy was seen under way: BULK_ROWS is too small for this machine`,
      );
    const copying = seen;
    expect(copying.status.instance).not.toBe(primary);
    expect(status().currentPrimary).toBe(primary);
    const backlog = archiveBacklog(primarySql);
    // Still copying at the last moment before the fault; otherwise the test proves nothing.
    const phaseBefore = backupStatus(INTERRUPTED).phase;
    const stopped = backupProgress(copying.pod).includes("backup stop");

    const t0 = Date.now();
    kubectlOk(["delete", "pod", primary, "-n", ns, "--wait=false"]);
    kill = {
      at: t0,
      primary,
      copiedFrom: copying.status.instance!,
      label: copying.label,
      phaseBefore: stopped ? "stopping" : phaseBefore,
    };
    console.log(
      `${primary}'s pod deleted while backup ${copying.label} was copying from ${kill.copiedFrom} (${backlog} segment(s) not yet archived); the Backup, ${phaseBefore} just before, is ${backupStatus(INTERRUPTED).phase} just after`,
    );
    expect(kill.phaseBefore).toBe("Running");

    const promoted = await diagnosed(
      waitFor(
        "a new primary",
        () => {
          const now = status().currentPrimary;
          return now && now !== primary ? now : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      ),
      ns,
      DB,
      operator.logFile,
    );
    const ack = await waitFor(
      "a write acknowledged by the new primary",
      () => load.firstAckAfter(t0, oldIp),
      { timeoutMs: 60_000 },
    );
    await healthy(DB, 3);
    const allStreamingMs = Date.now() - t0;
    // Through -rw, which may still be moving to the new primary: retry until it answers.
    const check = await waitFor(
      "the rows through -rw",
      () => missingAcknowledgedRows(appCredentials(ns, DB), "load", load.acknowledgedRanges()),
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    const violations = load.violations();
    console.log(
      `failover ${primary} -> ${promoted} during Backup ${INTERRUPTED}:\n${faultTable([
        {
          fault: "primary's pod deleted while a backup copies from a standby",
          firstWriteMs: ack.at - t0,
          longestGapMs: load.longestGap(t0, Date.now()),
          acknowledged: check.acknowledged,
          lost: check.missing,
          twoWritable: violations.length,
          allStreamingMs,
        },
      ])}\n${loadWriters()} writer(s)`,
    );
    expect(violations).toEqual([]);
    expectNoneMissing(check);
    expect(get("database", ns, DB)!.status!.lastFailover).toMatchObject({
      from: primary,
      to: promoted,
    });
    expect(status().instances!.find(i => i.name === primary)).toMatchObject({
      role: "replica",
      ready: true,
      streaming: true,
    });
  }, 600_000);

  it("ends the interrupted Backup truthfully and in bounded time: Failed with a reason, or Completed and verifiable", async () => {
    expect(kill?.phaseBefore).toBe("Running");
    const ended = await diagnosed(
      waitFor(
        `Backup ${INTERRUPTED} Completed or Failed`,
        () => {
          const b = backupStatus(INTERRUPTED);
          return b.phase === "Completed" || b.phase === "Failed" ? b : undefined;
        },
        {
          timeoutMs: Math.max(0, kill.at + INTERRUPTED_ENDS_WITHIN_MS - Date.now()),
          intervalMs: 1000,
        },
      ),
      ns,
      DB,
      operator.logFile,
    );
    // The helper's own wait agrees (it is bounded too).
    await expect(interrupted).resolves.toMatchObject({ phase: ended.phase });
    const endedMs = Date.now() - kill.at;
    const pod = jobPodOf(INTERRUPTED);
    const tail = pod
      ? kubectl(["logs", "-n", ns, pod.metadata.name, "--tail=12", "--limit-bytes=16384"]).stdout
      : "(no pod)";
    console.log(
      `Backup ${INTERRUPTED} (copying from ${kill.copiedFrom}) ended ${ended.phase} ${endedMs} ms after ${kill.primary}'s pod was deleted: ${ended.message}\nits Job's last lines:\n${tail}`,
    );
    // Its Job is over, or soon (a deleted one's pod stops): nothing copies on for long.
    await diagnosed(
      waitFor(
        `the Job of Backup ${INTERRUPTED} stopped`,
        () => {
          const p = jobPodOf(INTERRUPTED);
          return !p || podPhase(p) !== "Running";
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      ),
      ns,
      DB,
      operator.logFile,
    );
    expect(ended.completedAt).toEqual(expect.any(String));
    const info = JSON.parse(
      pgbackrestIn(ns, status().currentPrimary!, "info", "--output=json"),
    ) as { backup: { label: string }[] }[];
    const labels = info[0].backup.map(b => b.label);
    if (ended.phase === "Failed") {
      expect(ended.message?.trim()).toBeTruthy();
      expect(ended.label).toBeUndefined();
      // Nothing of it counts as a backup a restore could choose.
      expect(labels).not.toContain(kill.label);
      // The Database says so too, until a backup succeeds.
      await waitFor(
        "BackupSucceeded False on the Database",
        () =>
          condition("BackupSucceeded")?.status === "False" &&
          condition("BackupSucceeded")?.message.includes(INTERRUPTED),
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
    } else {
      expect(labels).toContain(ended.label);
      // Completed despite losing the primary mid-copy: then it must restore, so pgBackRest must
      // vouch for every file of it and the WAL it needs.
      expect(ended.label).toMatch(/^\d{8}-\d{6}F$/);
      pgbackrestIn(ns, status().currentPrimary!, "verify", `--set=${ended.label}`);
    }
  }, 300_000);

  it("completes a verified Backup on the new timeline, archiving going on", async () => {
    const s = await healthy(DB, 3);
    const timeline = s.instances!.find(i => i.name === s.currentPrimary)!.timeline!;
    expect(timeline).toBeGreaterThan(1);
    const taken = await diagnosed(
      backUp(ns, DB, AFTER, { verify: true }),
      ns,
      DB,
      operator.logFile,
    );
    console.log(
      `Backup ${AFTER}: ${taken.phase} in ${taken.durationSeconds} s from ${taken.instance}, ${taken.sizeBytes} bytes (${taken.repositorySizeBytes} in the repository): ${taken.message}`,
    );
    if (taken.label === kill.label)
      console.log(
        `(pgBackRest resumed the interrupted backup ${kill.label}: its files were checked again)`,
      );
    // A backup is no reason to fail over: the failover is still the one the test caused.
    expect(get("database", ns, DB)!.status!.lastFailover).toMatchObject({ from: kill.primary });
    expect(taken).toMatchObject({ phase: "Completed", verified: true, type: "full" });
    expect(taken.instance).not.toBe(status().currentPrimary);
    // Its WAL is the new timeline's (the first 8 hex digits of a segment name).
    expect(parseInt(taken.beginWAL!.slice(0, 8), 16)).toBe(timeline);
    await diagnosed(
      waitFor(
        "the Database's status to name the new backup, archiving True",
        () =>
          status().lastSuccessfulBackup?.name === AFTER &&
          condition("BackupSucceeded")?.status === "True" &&
          condition("ContinuousArchiving")?.status === "True",
        { timeoutMs: 60_000, intervalMs: 1000 },
      ),
      ns,
      DB,
      operator.logFile,
    );
  }, 420_000);

  it("restores every acknowledged row from the repository, to the end of the archive", async () => {
    await load.stop();
    const ranges = load.acknowledgedRanges();
    expect(load.violations()).toEqual([]);
    expectNoneMissing(await missingAcknowledgedRows(appCredentials(ns, DB), "load", ranges));
    // Every acknowledged commit is in a segment that reached the archive.
    const primary = superuserApp(DB, status().currentPrimary!);
    const last = psql(primary, "select pg_walfile_name(pg_current_wal_lsn())");
    psql(primary, "select pg_switch_wal()");
    await waitFor(
      `segment ${last} archived`,
      () => psql(primary, `select last_archived_wal >= '${last}' from pg_stat_archiver`) === "t",
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    create(
      database(ns, "restored", {
        instances: 1,
        storage: STORAGE,
        bootstrap: {
          recovery: {
            source: {
              objectStore: localObjectStore(),
              repositoryPath: status().backup!.repositoryPath!,
            },
          },
        },
      }),
    );
    await healthy("restored", 1, 420_000);
    const restored = superuserApp("restored", "restored-0");
    const check = await waitFor(
      "the rows on the restored primary",
      () => missingAcknowledgedRows(restored, "load", ranges),
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    console.log(
      `restored: ${check.acknowledged} acknowledged rows checked, ${check.missing} missing`,
    );
    expectNoneMissing(check);
    // (A cold scan of the whole table on a busy node: more than psql's usual 15 s.)
    expect(psql(restored, "select count(*) from bulk", 120_000)).toBe(String(BULK_ROWS));
  }, 600_000);
});
