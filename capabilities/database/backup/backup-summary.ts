/**
 * What a Database's status says about its Backups, from the Backups themselves (pure): the newest
 * Completed one, the first recoverability point it saw, and BackupSucceeded from the newest one
 * that finished (a failure after a success shows, until the next success).
 */
import type { BackupStatus } from "../api/backup-schema";
import type { KubeObject } from "../cluster/cluster";

export interface BackupSummary {
  lastSuccessfulBackup?: { name: string; label?: string; time?: string };
  firstRecoverabilityPoint?: string;
  condition?: { status: "True" | "False"; reason: string; message: string };
}

const statusOf = (b: KubeObject): BackupStatus => (b.status ?? {}) as BackupStatus;
const finishedAt = (b: KubeObject): string => statusOf(b).completedAt ?? "";

const name = (b: KubeObject): string => b.metadata?.name ?? "";

function succeeded(
  backup: KubeObject,
): Pick<BackupSummary, "lastSuccessfulBackup" | "firstRecoverabilityPoint"> {
  const { label, stoppedAt, firstRecoverabilityPoint } = statusOf(backup);
  return {
    lastSuccessfulBackup: {
      name: name(backup),
      ...(label ? { label } : {}),
      ...(stoppedAt ? { time: stoppedAt } : {}),
    },
    ...(firstRecoverabilityPoint ? { firstRecoverabilityPoint } : {}),
  };
}

function conditionOf(newest: KubeObject): NonNullable<BackupSummary["condition"]> {
  const { phase, label, message } = statusOf(newest);
  return phase === "Completed"
    ? {
        status: "True",
        reason: "BackupCompleted",
        message: `Backup ${name(newest)} completed (${label ?? "no label"})`,
      }
    : {
        status: "False",
        reason: "BackupFailed",
        message: `Backup ${name(newest)} failed: ${message ?? "no reason given"}`,
      };
}

/**
 * A Database admitted by an earlier version with `backup.volume` and no object store: its
 * CronJob is gone and nothing backs it up any more, which the status must say (the volume and
 * the backups in it stay until the Database is deleted).
 */
const VOLUME_REMOVED: NonNullable<BackupSummary["condition"]> = {
  status: "False",
  reason: "BackupVolumeRemoved",
  message:
    "spec.backup.volume is no longer supported and nothing backs this Database up: set spec.backup.objectStore (and remove volume); the claim <name>-backups and its backups are kept until the Database is deleted",
};

export function summarizeBackups(backups: KubeObject[], onlyRemovedVolume = false): BackupSummary {
  if (onlyRemovedVolume) return { condition: VOLUME_REMOVED };
  const finished = backups
    .filter(b => ["Completed", "Failed"].includes(statusOf(b).phase ?? ""))
    .sort((a, b) => finishedAt(a).localeCompare(finishedAt(b)));
  if (finished.length === 0) return {};
  const lastGood = [...finished].reverse().find(b => statusOf(b).phase === "Completed");
  return {
    ...(lastGood ? succeeded(lastGood) : {}),
    condition: conditionOf(finished[finished.length - 1]),
  };
}
