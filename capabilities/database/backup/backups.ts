/**
 * The Backups of one Database, once per reconcile: the one spec.backup.schedule wants now is
 * created (scheduled-backups.ts), then each unfinished one gets its Job started, or
 * its status from what its Job did (backup-step.ts decides). Returns every Backup of the
 * Database as it now stands, for the Database's status. Reads come from the cache
 * (Backups, Jobs and their pods are watched), so a Database with no Backups costs nothing.
 * The Backup's status has one writer: this step, or, for Backups whose Database does not exist
 * (not yet, or deleted while their Job ran), settleBackupsWithoutDatabase.
 */
import type { V1OwnerReference } from "@kubernetes/client-node";
import { Database } from "../api/database";
import { BACKUP_REF } from "../api/kinds";
import { Cluster, KubeObject } from "../cluster/cluster";
import { BuildInput } from "../specs";
import { buildBackupJob, LABEL_BACKUP, type BackupType } from "../specs/backup-job";
import { repositoryPath } from "../specs/pgbackrest";
import { decideBackup, isFinished, jobNameFor } from "./backup-step";
import { scheduledBackup } from "./scheduled-backups";

export interface BackupInstances {
  /** The primary when it is ready and no operation is under way. */
  primary?: string;
  /** Standbys that stream and serve reads. */
  standbys: string[];
}

const created = (o: KubeObject): string =>
  String((o.metadata as { creationTimestamp?: string | Date })?.creationTimestamp ?? "");

/** Backups of Database `database` in `namespace`, oldest first (the queue order). */
async function backupsOf(
  cluster: Cluster,
  namespace: string,
  database: string,
): Promise<KubeObject[]> {
  const all = await cluster.list(BACKUP_REF, namespace, {});
  return all
    .filter(b => (b.spec as { database?: string })?.database === database)
    .sort(
      (a, b) =>
        created(a).localeCompare(created(b)) ||
        (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""),
    );
}

const ownerOf = (backup: KubeObject): V1OwnerReference => ({
  apiVersion: BACKUP_REF.apiVersion,
  kind: BACKUP_REF.kind,
  name: backup.metadata?.name ?? "",
  uid: backup.metadata?.uid ?? "",
  controller: true,
  blockOwnerDeletion: true,
});

/** What every Backup of one pass shares; no `input` when the Database does not exist. */
interface Pass {
  cluster: Cluster;
  namespace: string;
  input?: BuildInput;
  instances: BackupInstances;
  now: Date;
  repositoryPath: string | undefined;
}

export async function reconcileBackups(
  cluster: Cluster,
  db: Database,
  input: BuildInput,
  instances: BackupInstances,
  now: Date,
): Promise<KubeObject[]> {
  const namespace = db.metadata?.namespace ?? "";
  const all = await backupsOf(cluster, namespace, db.metadata?.name ?? "");
  const wanted = scheduled(db, input, all, now);
  if (wanted) all.push(await cluster.apply(wanted));
  return settle(all, {
    cluster,
    namespace,
    input,
    instances,
    now,
    repositoryPath: repositoryOf(db, input),
  });
}

/**
 * The unfinished Backups of a Database that does not exist: a Job that ran gets its outcome
 * recorded (the Database was deleted under it), the others wait, Pending, saying why.
 */
export async function settleBackupsWithoutDatabase(
  cluster: Cluster,
  namespace: string,
  database: string,
  now: Date,
): Promise<void> {
  const all = await backupsOf(cluster, namespace, database);
  const pass = { cluster, namespace, instances: { standbys: [] }, now, repositoryPath: undefined };
  await settle(all, pass);
}

async function settle(all: KubeObject[], pass: Pass): Promise<KubeObject[]> {
  let busyWith: string | undefined;
  const after = new Map<string, KubeObject>();
  for (const backup of all.filter(b => !isFinished(b))) {
    const next = await step(pass, backup, busyWith);
    if (next) after.set(nameOf(next), next);
    if (phaseOf(next ?? backup) === "Running") busyWith ??= nameOf(backup);
  }
  return all.map(b => after.get(nameOf(b)) ?? b);
}

const nameOf = (o: KubeObject): string => o.metadata?.name ?? "";
const phaseOf = (o: KubeObject): string | undefined =>
  (o.status as { phase?: string } | undefined)?.phase;

function repositoryOf(db: Database, input: BuildInput): string | undefined {
  const store = input.spec.backup?.objectStore;
  if (!store) return undefined;
  const { namespace = "", name = "", uid = "" } = db.metadata ?? {};
  return repositoryPath(store, { namespace, name, uid });
}

/** The Backup spec.backup.schedule wants now (with an object store only), if missing. */
function scheduled(
  db: Database,
  input: BuildInput,
  all: KubeObject[],
  now: Date,
): KubeObject | undefined {
  const { schedule, objectStore } = input.spec.backup ?? {};
  if (!schedule || !objectStore) return undefined;
  return scheduledBackup(db, schedule, new Set(all.map(nameOf)), now);
}

/** One Backup: its decision carried out; the Backup as written, when it was. */
async function step(
  pass: Pass,
  backup: KubeObject,
  busyWith: string | undefined,
): Promise<KubeObject | undefined> {
  const { cluster, input, instances, namespace } = pass;
  const name = backup.metadata?.name ?? "";
  const jobName = jobNameFor(name);
  const job = await cluster.get(
    { apiVersion: "batch/v1", kind: "Job", namespace, name: jobName },
    { missingIsAbsent: true },
  );
  const [jobPod] = job
    ? await cluster.list({ apiVersion: "v1", kind: "Pod" }, namespace, { [LABEL_BACKUP]: jobName })
    : [];
  const decision = decideBackup({
    backup,
    job,
    jobPod,
    archiving: input?.spec.backup?.objectStore !== undefined,
    databaseMissing: input === undefined,
    repositoryPath: pass.repositoryPath,
    primary: instances.primary,
    standbys: instances.standbys,
    busyWith,
    now: pass.now,
  });
  if (decision.action === "none") return undefined;
  if (decision.action === "start" && input) {
    const spec = backup.spec as { type?: BackupType; verify?: boolean };
    const built = buildBackupJob(input, {
      name: decision.job,
      owner: ownerOf(backup),
      type: spec.type ?? "full",
      instances: decision.instances,
      verify: spec.verify === true,
    });
    if (built) await cluster.apply(built as KubeObject);
  }
  const ref = { ...BACKUP_REF, namespace, name };
  return cluster.patchObjectStatus(ref, decision.status as Record<string, unknown>);
}
