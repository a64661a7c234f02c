/**
 * The major upgrade step (ADR 0041; upgrade/decide.ts decides): what this pass sees, gathered from
 * the cache; the decision's status recorded first, by the pass's one writer, then its effects
 * (a Job, a Backup, an Event), each of which a later pass repeats when it did not happen.
 */
import type { V1Container } from "@kubernetes/client-node";
import { ConditionInput, setCondition } from "../api/conditions";
import { LABEL_COMPONENT, LABEL_DATABASE } from "../api/names";
import { fullBackup } from "../backup/scheduled-backups";
import { KubeObject } from "../cluster/cluster";
import { jobEnded, terminationMessage } from "../cluster/jobs";
import { isPodReady } from "../cluster/objects";
import { POSTGRES_CONTAINER } from "../specs/layout";
import { identity } from "../specs/meta";
import {
  buildUpgradeJob,
  UPGRADE_COMPONENT,
  UPGRADE_JOB_STEPS,
  upgradeJobName,
  UpgradeJobStep,
} from "../specs/upgrade-job";
import {
  createdBefore,
  decideUpgrade,
  isUnderWay,
  JobState,
  UpgradeDecision,
  UpgradeEffect,
  UpgradeStatus,
  UpgradeView,
} from "../upgrade/decide";
import type { Found, Pass, StepResult } from "./pass";
import { primaryOf } from "./pods";

/** While an upgrade runs, look again at least this often (Jobs and pods also wake the pass). */
const UNDER_WAY_REQUEUE_MS = 5000;

const backupNameFor = (db: string, to: string): string => `${db}-upgrade-${to}`;
/** The backup of the old major an upgrade takes first when there is none (upgrade/readiness.ts). */
const backupBeforeNameFor = (db: string, to: string): string => `${db}-before-upgrade-${to}`;

async function jobStateOf(
  pass: Pass,
  step: UpgradeJobStep,
  startedAt: string | undefined,
): Promise<JobState> {
  const { namespace, name } = identity(pass.db);
  const jobName = upgradeJobName(name, step);
  const job = await pass.deps.cluster.get(
    { apiVersion: "batch/v1", kind: "Job", namespace, name: jobName },
    { missingIsAbsent: true },
  );
  if (!job) return { state: "absent" };
  if (createdBefore(String(job.metadata?.creationTimestamp ?? ""), startedAt))
    return { state: "stale" };
  const ended = jobEnded(job);
  if (ended === undefined) return { state: "running" };
  const pods = await pass.deps.cluster.list({ apiVersion: "v1", kind: "Pod" }, namespace, {
    [LABEL_DATABASE]: name,
    [LABEL_COMPONENT]: UPGRADE_COMPONENT,
  });
  const newest = pods
    .filter(p => p.metadata?.labels?.["job-name"] === jobName)
    .sort((a, b) =>
      String(b.metadata?.creationTimestamp ?? "").localeCompare(
        String(a.metadata?.creationTimestamp ?? ""),
      ),
    )[0];
  const message = (terminationMessage(newest) ?? "").trim();
  return ended === "succeeded" ? { state: "succeeded", message } : { state: "failed", message };
}

const phaseOf = (o: KubeObject): string | undefined =>
  (o.status as { phase?: string } | undefined)?.phase;

/** What an upgrade waits for before it stops anything: an operation, or a backup that runs. */
function busyWith(pass: Pass, backups: KubeObject[]): string | undefined {
  const operation = pass.db.status?.operation;
  if (operation) return `the ${operation.type.toLowerCase()} of ${operation.from}`;
  const running = backups.find(b => phaseOf(b) === "Running");
  return running ? `the Backup ${running.metadata?.name ?? ""}` : undefined;
}

/** The newest Completed Backup's stop time. */
function lastBackupAt(backups: KubeObject[]): string | undefined {
  const times = backups
    .filter(b => phaseOf(b) === "Completed")
    .map(b => (b.status as { stoppedAt?: string }).stoppedAt ?? "")
    .filter(t => t !== "")
    .sort();
  return times.at(-1);
}

function primaryServing(pass: Pass, primary: string): boolean {
  const pod = pass.pods.find(p => p.metadata?.name === primary);
  if (!pod || !isPodReady(pod)) return false;
  const containers = (pod.spec as { containers?: V1Container[] } | undefined)?.containers ?? [];
  return containers.find(c => c.name === POSTGRES_CONTAINER)?.image === pass.wanted.image;
}

/** A Backup's phase and why it failed, once it exists. */
function backupState(
  backups: KubeObject[],
  name: string | undefined,
): { phase?: string; error?: string } | undefined {
  const found = name === undefined ? undefined : backups.find(b => b.metadata?.name === name);
  if (!found) return undefined;
  const error = (found.status as { message?: string } | undefined)?.message;
  return { phase: phaseOf(found), ...(error ? { error } : {}) };
}

/** What the status of the last pass says of the instances and the archive. */
function readinessOf(
  pass: Pass,
  primary: string,
): Pick<UpgradeView, "primaryOutdated" | "standbyLag" | "archivingProblem"> {
  const instances = pass.db.status?.instances ?? [];
  const archiving = pass.db.status?.conditions?.find(c => c.type === "ContinuousArchiving");
  return {
    primaryOutdated: instances.some(i => i.name === primary && i.needsRestart === true),
    standbyLag: instances
      .filter(i => i.role === "replica" && i.lagBytes !== undefined)
      .map(i => ({ name: i.name, bytes: i.lagBytes ?? 0 })),
    ...(archiving?.status === "False" ? { archivingProblem: archiving.message } : {}),
  };
}

/** The Jobs, read only while an upgrade is under way. */
async function jobsOf(
  pass: Pass,
  u: UpgradeStatus | undefined,
): Promise<Pick<UpgradeView, "checkJob" | "convertJob" | "commitJob">> {
  const absent = { state: "absent" } as const;
  if (!isUnderWay(u)) return { checkJob: absent, convertJob: absent, commitJob: absent };
  return {
    checkJob: await jobStateOf(pass, "check", u?.startedAt),
    convertJob: await jobStateOf(pass, "convert", u?.startedAt),
    commitJob: await jobStateOf(pass, "commit", u?.startedAt),
  };
}

const optional = <K extends string, T>(key: K, value: T | undefined): Partial<Record<K, T>> =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, T>>;

async function viewOf(pass: Pass, found: Found): Promise<UpgradeView> {
  const upgrade = pass.writer.status?.upgrade;
  const backups = found.backups ?? [];
  const primary = found.primary ?? primaryOf(pass.db);
  return {
    wanted: { version: pass.wanted.version, image: pass.wanted.image },
    data: pass.dataVersion,
    runningImage: pass.running.image ?? pass.spec.image,
    ...(upgrade ? { upgrade } : {}),
    primary,
    busyWith: busyWith(pass, backups),
    ...readinessOf(pass, primary),
    pods: pass.pods.length,
    primaryServing: primaryServing(pass, upgrade?.primary ?? primary),
    ...(await jobsOf(pass, upgrade)),
    backsUp: pass.wanted.backup?.objectStore !== undefined,
    lastBackupAt: lastBackupAt(backups),
    ...optional("backup", backupState(backups, upgrade?.backup)),
    ...optional(
      "backupBefore",
      backupState(backups, backupBeforeNameFor(identity(pass.db).name, pass.wanted.version)),
    ),
    now: pass.deps.now(),
  };
}

/** The MajorUpgrade condition: True once the last upgrade succeeded. */
function conditionOf(u: UpgradeStatus): ConditionInput {
  return {
    type: "MajorUpgrade",
    status: u.phase === "Succeeded" ? "True" : "False",
    reason: u.phase,
    message: `PostgreSQL ${u.from} to ${u.to}: ${u.message ?? u.phase}`,
  };
}

/** status.upgrade with the name of the Backup it is about to create. */
const withBackupName = (pass: Pass, decision: UpgradeDecision): UpgradeStatus | undefined => {
  const u = decision.upgrade;
  if (!u || !decision.effects.includes("createBackup")) return u;
  return { ...u, backup: backupNameFor(identity(pass.db).name, u.to) };
};

/** The decision's status, written before its effects; status.version once the data converted. */
async function record(pass: Pass, decision: UpgradeDecision): Promise<UpgradeStatus | undefined> {
  const { writer, deps, db } = pass;
  const before = writer.status;
  const upgrade = withBackupName(pass, decision);
  // status.version otherwise comes with the status step's write (no write of its own).
  const version = decision.version;
  if (!upgrade && !version) return before?.upgrade;
  const recorded = upgrade
    ? {
        upgrade,
        conditions: setCondition(
          before?.conditions,
          conditionOf(upgrade),
          deps.now(),
          db.metadata?.generation,
        ),
      }
    : {};
  await writer.update({ ...(version ? { version } : {}), ...recorded });
  return writer.status?.upgrade;
}

async function deleteJobs(pass: Pass): Promise<void> {
  const { namespace, name } = identity(pass.db);
  for (const step of UPGRADE_JOB_STEPS) {
    await pass.deps.cluster.delete(
      { apiVersion: "batch/v1", kind: "Job", namespace, name: upgradeJobName(name, step) },
      { background: true },
    );
  }
}

async function carryOut(pass: Pass, effect: UpgradeEffect, u: UpgradeStatus): Promise<void> {
  const cluster = pass.deps.cluster;
  const newMajor = { ...pass.input, spec: pass.wanted };
  const job = (step: UpgradeJobStep) =>
    buildUpgradeJob(newMajor, {
      step,
      primary: u.primary ?? primaryOf(pass.db),
      from: u.from,
      fromImage: u.fromImage ?? pass.spec.image,
    });
  switch (effect) {
    case "deleteJobs":
      return deleteJobs(pass);
    case "createCheckJob":
      return void (await cluster.apply(job("check") as KubeObject));
    case "createConvertJob":
      return void (await cluster.apply(job("convert") as KubeObject));
    case "createCommitJob":
      return void (await cluster.apply(job("commit") as KubeObject));
    case "createBackupBefore":
      return void (await cluster.apply(
        fullBackup(pass.db, backupBeforeNameFor(identity(pass.db).name, u.to)),
      ));
    case "createBackup":
      return void (await cluster.apply(
        fullBackup(pass.db, u.backup ?? backupNameFor(identity(pass.db).name, u.to)),
      ));
    case "announce":
      return cluster.recordEvent(pass.db, {
        type: u.phase === "Failed" ? "Warning" : "Normal",
        reason: `MajorUpgrade${u.phase}`,
        message: `PostgreSQL ${u.from} to ${u.to}: ${u.message ?? u.phase}`,
      });
  }
}

export async function upgradeStep(pass: Pass, found: Found): Promise<StepResult> {
  try {
    const view = await viewOf(pass, found);
    const decision = decideUpgrade(view);
    const upgrade = await record(pass, decision);
    for (const effect of decision.effects) if (upgrade) await carryOut(pass, effect, upgrade);
    return isUnderWay(upgrade) ? { requeueAfterMs: UNDER_WAY_REQUEUE_MS } : {};
  } catch (failure) {
    return { failure };
  }
}
