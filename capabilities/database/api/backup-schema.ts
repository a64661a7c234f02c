/**
 * The `Backup` custom resource (pgkeeper.dev/v1alpha1): one base backup of a Database into its
 * object store repository, on demand or from spec.backup.schedule. Never owned by the Database,
 * so `kubectl get backups` stays the history after the Database is gone (ADR 0013).
 */
import { boolean, Infer, integer, object, string, stringEnum } from "./schema";

/** A Database's name: what the Backup refers to (same namespace). */
const DATABASE_NAME_PATTERN = "^[a-z]([-a-z0-9]*[a-z0-9])?$";

export const BACKUP_TYPES = ["full", "diff", "incr"] as const;
export const BACKUP_TARGETS = ["prefer-standby", "primary"] as const;

export const backupSpecSchema = object(
  {
    database: string("The Database to back up, in the Backup's namespace.", {
      minLength: 1,
      maxLength: 50,
      pattern: DATABASE_NAME_PATTERN,
    }),
    type: stringEnum(
      BACKUP_TYPES,
      "full: every file; diff: what changed since the last full backup; incr: since the last backup of any type. Default full (diff and incr need a full one first, or pgBackRest takes a full one).",
    ),
    target: stringEnum(
      BACKUP_TARGETS,
      "prefer-standby: copy the files from a streaming standby when there is one (the primary only starts and stops the backup); primary: from the primary. Default prefer-standby.",
    ),
    verify: boolean(
      "Run pgBackRest's verify on the new backup (checksums of every file and the WAL it needs) before it is Completed. Default false.",
    ),
  },
  "What to back up and how. Immutable: create a new Backup to back up again.",
  {
    required: ["database"],
    "x-kubernetes-validations": [
      {
        rule: "self == oldSelf",
        message: "a Backup's spec is immutable: create a new Backup instead",
      },
    ],
  },
);

export type BackupSpec = Infer<typeof backupSpecSchema>;

export const BACKUP_PHASES = ["Pending", "Running", "Completed", "Failed"] as const;
export type BackupPhase = (typeof BACKUP_PHASES)[number];

export const backupStatusSchema = object(
  {
    phase: stringEnum(BACKUP_PHASES, "Pending, Running, Completed or Failed."),
    message: string("Why the Backup is in its phase (what it waits for, or why it failed)."),
    job: string("The Job taking the backup."),
    instance: string("The instance whose files were copied."),
    repositoryPath: string(
      "The repository the backup is in (the Database's status.backup.repositoryPath).",
    ),
    label: string("pgBackRest's label of the backup: bootstrap.recovery.backupSet names it."),
    type: string("full, diff or incr, as taken (pgBackRest takes a full one when there is none)."),
    startedAt: string("When the backup started.", { format: "date-time" }),
    stoppedAt: string("When the backup stopped: the earliest point a restore from it reaches.", {
      format: "date-time",
    }),
    durationSeconds: integer("stoppedAt minus startedAt."),
    beginLSN: string("WAL position at the start of the backup."),
    endLSN: string("WAL position at its end: a restore from it replays at least to here."),
    beginWAL: string("First WAL segment the backup needs."),
    endWAL: string("Last WAL segment the backup needs."),
    sizeBytes: integer("The database's size when backed up."),
    repositorySizeBytes: integer("What the backup added to the repository (compressed)."),
    firstRecoverabilityPoint: string(
      "The end of the oldest backup in the repository once this one was taken: the earliest point a restore could reach then.",
      { format: "date-time" },
    ),
    verified: boolean("pgBackRest's verify passed (with spec.verify)."),
    completedAt: string("When the operator saw the Job end.", { format: "date-time" }),
  },
  "What happened to this Backup. Written by the operator only.",
);

export type BackupStatus = Infer<typeof backupStatusSchema>;
