import { BACKUP_VOLUME_REMOVED } from "../../api/database-schema";
import { validateCron } from "../../lib/cron";
import { cronNeverFires } from "../../lib/cron-fires";
import { deny, Rule } from "./types";
import { deepEqual } from "./util";

const MAX_BACKUP_RETENTION = 365;
const MAX_BACKUP_RETENTION_DAYS = 3650;

export const backupScheduleRule: Rule = {
  name: "backup-schedule",
  check: ({ db }) => {
    const schedule = db.spec.backup?.schedule;
    if (schedule === undefined) return [];
    // A schedule no date matches is well-formed, but no backup would ever be taken.
    const never = cronNeverFires(schedule);
    const error = validateCron(schedule) ?? (never && `"${schedule}" ${never}`);
    return error === undefined ? [] : [deny("spec.backup.schedule", error)];
  },
};

/**
 * A field either works or is refused: without an object store there is nowhere to archive, to
 * back up or to expire from, so these fields would do nothing.
 */
const NEEDS_STORE: Record<
  "schedule" | "retention" | "retentionDays" | "archiveTimeoutSeconds",
  string
> = {
  schedule: "is set: the backups need somewhere to go",
  retention: "is set: it counts the backups kept there",
  retentionDays: "is set: it ages the backups kept there",
  archiveTimeoutSeconds: "is set: nothing is archived without it",
};

export const backupNeedsStoreRule: Rule = {
  name: "backup-needs-store",
  check: ({ db, old }) => {
    const backup = db.spec.backup;
    if (backup === undefined || backup.objectStore !== undefined) return [];
    // Admitted by an earlier version (with the backup volume) and unchanged: ratcheted.
    if (old && deepEqual(backup, old.spec.backup)) return [];
    return (Object.keys(NEEDS_STORE) as (keyof typeof NEEDS_STORE)[])
      .filter(field => backup[field] !== undefined)
      .map(field =>
        deny(`spec.backup.${field}`, `needs spec.backup.objectStore when it ${NEEDS_STORE[field]}`),
      );
  },
};

export const backupRetentionRule: Rule = {
  name: "backup-retention",
  check: ({ db }) => {
    const { retention, retentionDays } = db.spec.backup ?? {};
    const denials = [];
    if (retention !== undefined && !(retention >= 1 && retention <= MAX_BACKUP_RETENTION))
      denials.push(
        deny(
          "spec.backup.retention",
          `${retention} is out of range; allowed 1..${MAX_BACKUP_RETENTION} backups`,
        ),
      );
    if (
      retentionDays !== undefined &&
      !(retentionDays >= 1 && retentionDays <= MAX_BACKUP_RETENTION_DAYS)
    )
      denials.push(
        deny(
          "spec.backup.retentionDays",
          `${retentionDays} is out of range; allowed 1..${MAX_BACKUP_RETENTION_DAYS} days`,
        ),
      );
    return denials;
  },
};

/**
 * The backup volume (a PVC owned by the Database, so deleted with it) is removed: backups go to
 * an object store, where they outlive the Database. Refused by name (CEL says the same when the
 * operator is down). A Database admitted with it by an earlier version may still be updated as
 * long as the volume is unchanged, as the apiserver ratchets its own rules; its status says that
 * no backups go there any more.
 */
export const backupVolumeRemovedRule: Rule = {
  name: "backup-volume-removed",
  check: ({ db, old }) => {
    const volume = db.spec.backup?.volume;
    if (volume === undefined) return [];
    if (old && deepEqual(volume, old.spec.backup?.volume)) return [];
    return [deny("spec.backup.volume", BACKUP_VOLUME_REMOVED.replace(/^backup\.volume /, ""))];
  },
};
