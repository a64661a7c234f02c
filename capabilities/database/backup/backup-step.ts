/**
 * What to do for one Backup of a Database, decided from what is observed: the Backup, its Job,
 * the Job's pod and the Database's instances. Pure. One backup runs at a time per Database (two
 * would compete for the same I/O and pgBackRest's repository lock); the others wait, Pending,
 * in creation order.
 */
import type { BackupStatus } from "../api/backup-schema";
import type { KubeObject } from "../cluster/cluster";
import { jobEnded, terminationMessage } from "../cluster/jobs";
import { jobNameFor } from "../specs/backup-job";
import { BackupFacts, jobOutcome } from "./backup-result";

export type BackupDecision =
  | { action: "none" }
  | { action: "status"; status: BackupStatus }
  | { action: "start"; job: string; instances: string[]; status: BackupStatus };

export interface BackupScene {
  backup: KubeObject;
  /** The Backup's Job and its pod, when they exist. */
  job?: KubeObject;
  jobPod?: KubeObject;
  /** The Database backs up to an object store (spec.backup.objectStore). */
  archiving: boolean;
  /** No Database of the Backup's spec.database exists (not yet, or deleted). */
  databaseMissing?: boolean;
  repositoryPath?: string;
  /** The primary when it is ready and no failover or switchover is under way. */
  primary?: string;
  /** Standbys that stream and serve reads, in order. */
  standbys: string[];
  /** Another Backup of this Database whose Job runs (or is about to). */
  busyWith?: string;
  now: Date;
}

const TERMINAL = new Set(["Completed", "Failed"]);

export { jobNameFor };

const statusOf = (backup: KubeObject): BackupStatus => (backup.status ?? {}) as BackupStatus;

export const isFinished = (backup: KubeObject): boolean =>
  TERMINAL.has(statusOf(backup).phase ?? "");

/** The status to write when it differs from the stored one, else nothing. */
function write(backup: KubeObject, next: BackupStatus): BackupDecision {
  const current = statusOf(backup);
  const changed = (Object.keys(next) as (keyof BackupStatus)[]).some(k => current[k] !== next[k]);
  return changed ? { action: "status", status: next } : { action: "none" };
}

const specOf = (backup: KubeObject) =>
  (backup.spec ?? {}) as { database?: string; target?: string; verify?: boolean };

export function decideBackup(scene: BackupScene): BackupDecision {
  const { backup, job } = scene;
  if (isFinished(backup)) return { action: "none" };
  const completedAt = scene.now.toISOString();
  // A started backup's outcome is its Job's, whatever became of the Database since.
  if (job) return fromJob(scene, job, completedAt);
  if (statusOf(backup).phase === "Running") {
    return write(backup, {
      phase: "Failed",
      message: `its Job ${statusOf(backup).job} was deleted before it finished`,
      completedAt,
    });
  }
  if (scene.databaseMissing) {
    // Not Failed: the Database may come (applied after its Backup, as tools often do).
    return write(backup, {
      phase: "Pending",
      message: `waits for Database ${specOf(backup).database}, which does not exist in namespace ${backup.metadata?.namespace}`,
    });
  }
  if (!scene.archiving) {
    return write(backup, {
      phase: "Failed",
      message: `Database ${specOf(backup).database} has no spec.backup.objectStore: there is no repository to back up into`,
      completedAt,
    });
  }
  return waitOrStart(scene);
}

/** No Job yet: wait for the other backup or a ready primary, else start one. */
function waitOrStart(scene: BackupScene): BackupDecision {
  const { backup, primary } = scene;
  if (scene.busyWith) {
    return write(backup, { phase: "Pending", message: `waits for Backup ${scene.busyWith}` });
  }
  if (!primary) {
    return write(backup, {
      phase: "Pending",
      message: "waits for a ready primary (none, or a failover or switchover is under way)",
    });
  }
  const fromStandby = (specOf(backup).target ?? "prefer-standby") === "prefer-standby";
  const copyFrom = (fromStandby ? scene.standbys[0] : undefined) ?? primary;
  const job = jobNameFor(backup.metadata?.name ?? "");
  return {
    action: "start",
    job,
    instances: copyFrom === primary ? [primary] : [primary, copyFrom],
    status: {
      phase: "Running",
      message: `pgBackRest copies the files of ${copyFrom}`,
      job,
      instance: copyFrom,
      ...(scene.repositoryPath ? { repositoryPath: scene.repositoryPath } : {}),
    },
  };
}

function fromJob(scene: BackupScene, job: KubeObject, completedAt: string): BackupDecision {
  const { backup } = scene;
  const ended = jobEnded(job);
  if (ended === undefined) {
    return statusOf(backup).phase === "Running"
      ? { action: "none" }
      : write(backup, { phase: "Running", job: job.metadata?.name });
  }
  const outcome = jobOutcome(terminationMessage(scene.jobPod));
  if (ended === "failed" || "error" in outcome) {
    const reason = "error" in outcome ? outcome.error : "the Job failed";
    return write(backup, { phase: "Failed", message: reason, completedAt });
  }
  return write(backup, completedStatus(outcome.facts, specOf(backup).verify === true, completedAt));
}

function completedStatus(facts: BackupFacts, verified: boolean, completedAt: string): BackupStatus {
  const { startedAt, stoppedAt } = facts;
  const duration =
    startedAt && stoppedAt
      ? { durationSeconds: Math.round((Date.parse(stoppedAt) - Date.parse(startedAt)) / 1000) }
      : {};
  return {
    phase: "Completed",
    message: `backup ${facts.label} is in the repository${verified ? ", verified" : ""}`,
    ...facts,
    ...duration,
    ...(verified ? { verified: true } : {}),
    completedAt,
  };
}
