/**
 * What a backup Job's termination message says (specs/scripts/backup-job.ts), as Backup status
 * fields. Pure: the message is untrusted text (a truncated or foreign message is an error, never
 * a throw).
 */

/** The facts of one pgBackRest backup, as Backup status carries them. */
export interface BackupFacts {
  label: string;
  type?: string;
  /** Backup start and stop, ISO 8601. */
  startedAt?: string;
  stoppedAt?: string;
  beginLSN?: string;
  endLSN?: string;
  beginWAL?: string;
  endWAL?: string;
  /** The database's size, and what the backup takes in the repository (compressed, deduplicated). */
  sizeBytes?: number;
  repositorySizeBytes?: number;
  /** The end of the oldest backup in the repository once this one was taken (after retention). */
  firstRecoverabilityPoint?: string;
}

export type JobOutcome = { facts: BackupFacts } | { error: string };

interface InfoBackup {
  label?: string;
  type?: string;
  timestamp?: { start?: number; stop?: number };
  lsn?: { start?: string; stop?: string };
  archive?: { start?: string; stop?: string };
  info?: { size?: number; repository?: { delta?: number; size?: number } };
}

const isoOf = (seconds: number | undefined): string | undefined =>
  typeof seconds === "number" ? new Date(seconds * 1000).toISOString() : undefined;

/** The backup `label` in pgBackRest's `info --output=json` (an array of stanzas). */
function findBackup(info: unknown, label: string): InfoBackup | undefined {
  if (!Array.isArray(info)) return undefined;
  for (const stanza of info as { backup?: InfoBackup[] }[]) {
    const found = stanza?.backup?.find(b => b?.label === label);
    if (found) return found;
  }
  return undefined;
}

/** Where the backup starts and ends, in time and in WAL. */
function rangeOf({ timestamp, lsn, archive }: InfoBackup): Partial<BackupFacts> {
  return {
    startedAt: isoOf(timestamp?.start),
    stoppedAt: isoOf(timestamp?.stop),
    beginLSN: lsn?.start,
    endLSN: lsn?.stop,
    beginWAL: archive?.start,
    endWAL: archive?.stop,
  };
}

/** The facts pgBackRest's info gives about one backup. */
function factsOf(b: InfoBackup): Omit<BackupFacts, "label"> {
  const repository = b.info?.repository;
  return {
    type: b.type,
    ...rangeOf(b),
    sizeBytes: b.info?.size,
    // A full backup's delta is its whole size; an incremental's is what it added.
    repositorySizeBytes: repository?.delta ?? repository?.size,
  };
}

interface Message {
  label?: unknown;
  info?: unknown;
  error?: unknown;
  oldestStop?: unknown;
}

function parseMessage(message: string | undefined): Message | { error: string } {
  if (!message?.trim()) return { error: "the backup Job ended without a result" };
  try {
    return JSON.parse(message) as Message;
  } catch {
    return { error: `the backup Job's result does not parse: ${message.slice(0, 200)}` };
  }
}

export function jobOutcome(message: string | undefined): JobOutcome {
  const parsed = parseMessage(message);
  if (typeof parsed.error === "string") return { error: parsed.error || "pgBackRest failed" };
  const { label, oldestStop, info } = parsed as Message;
  if (typeof label !== "string" || label === "") {
    return { error: `the backup Job's result names no backup: ${String(message).slice(0, 200)}` };
  }
  const oldest =
    typeof oldestStop === "number" ? { firstRecoverabilityPoint: isoOf(oldestStop) } : {};
  const found = findBackup(info, label);
  return { facts: { label, ...oldest, ...(found ? factsOf(found) : {}) } };
}
