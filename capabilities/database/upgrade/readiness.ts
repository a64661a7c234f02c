/**
 * What a major upgrade waits for before it checks and stops anything (ADR 0041), as a pure
 * function of the pass's view. Each is a reason the stop would cost more than it must, or the way
 * back would be missing:
 *
 * - an operation or a backup under way (a failover is never attempted on a half-upgraded cluster);
 * - the primary not yet restarted onto the current configuration (the check Job reaches it through
 *   the socket its configuration puts on the data volume);
 * - a standby far behind: the primary's clean stop waits until its standbys received its WAL;
 * - continuous archiving failing, or no completed backup of the data's major: once the new major
 *   took writes, the way back is a restore of the old major's backup and archive into a new
 *   Database. With none, the upgrade takes a full backup first.
 */

/** A standby further behind than one WAL segment holds the primary's stop up. */
export const MAX_STANDBY_LAG_BYTES = 16 * 1024 * 1024;

export interface ReadinessView {
  /** The data's major, and the primary as it is now. */
  data: string;
  primary: string;
  /** An operation or a backup under way. */
  busyWith?: string;
  /** The primary's pod runs an older revision of the StatefulSet than the current one. */
  primaryOutdated: boolean;
  /** Each standby's lag in bytes, as status.instances has it. */
  standbyLag: { name: string; bytes: number }[];
  /** An object store is configured. */
  backsUp: boolean;
  /** ContinuousArchiving's message while it is False. */
  archivingProblem?: string;
  /** When the newest Completed Backup of this Database stopped. */
  lastBackupAt?: string;
  /** The backup an upgrade takes when there is none, once created. */
  backupBefore?: { phase?: string; error?: string };
}

export interface Wait {
  /** "Waiting for <what> ..." */
  what: string;
  /** The backup to take first (there is none). */
  takeBackup?: true;
}

const mib = (bytes: number): number => Math.round(bytes / (1024 * 1024));

function backupWait(v: ReadinessView): Wait | undefined {
  if (!v.backsUp || v.lastBackupAt !== undefined) return undefined;
  const why = `no Backup of PostgreSQL ${v.data} has completed, and after the upgrade the way back is a restore from one`;
  if (v.backupBefore === undefined)
    return { what: `a full backup of PostgreSQL ${v.data} (${why})`, takeBackup: true };
  if (v.backupBefore.phase === "Failed")
    return {
      what: `a completed Backup of PostgreSQL ${v.data}: the one taken for the upgrade failed (${v.backupBefore.error ?? "no reason given"}); create a Backup, or delete that one to take it again`,
    };
  return { what: `a full backup of PostgreSQL ${v.data} (${why})` };
}

export function upgradeWaitsFor(v: ReadinessView): Wait | undefined {
  if (v.busyWith) return { what: `${v.busyWith} to end` };
  if (v.primaryOutdated)
    return { what: `${v.primary} to restart onto the Database's current configuration` };
  const behind = v.standbyLag.find(s => s.bytes > MAX_STANDBY_LAG_BYTES);
  if (behind)
    return {
      what: `${behind.name} to catch up (${mib(behind.bytes)} MiB behind; the primary's clean stop waits for its standbys)`,
    };
  if (v.backsUp && v.archivingProblem !== undefined)
    return { what: `continuous archiving to work again (${v.archivingProblem})` };
  return backupWait(v);
}
