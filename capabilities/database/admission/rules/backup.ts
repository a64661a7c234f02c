import { validateCron } from "../../lib/cron";
import { compareQuantities } from "../../lib/quantity";
import { Denial, deny, Rule } from "./types";
import { quantityBelow, shown, sizeError } from "./util";

const MAX_BACKUP_RETENTION = 365;

export const backupScheduleRule: Rule = {
  name: "backup-schedule",
  check: ({ db }) => {
    const schedule = db.spec.backup?.schedule;
    const error = schedule === undefined ? undefined : validateCron(schedule);
    return error === undefined ? [] : [deny("spec.backup.schedule", error)];
  },
};

export const backupVolumeRequiredRule: Rule = {
  name: "backup-volume-required",
  check: ({ db }) =>
    db.spec.backup?.schedule !== undefined &&
    db.spec.backup.volume === undefined &&
    db.spec.backup.objectStore === undefined
      ? [
          deny(
            "spec.backup.objectStore",
            "(or spec.backup.volume) is required when spec.backup.schedule is set: the backups need somewhere to go",
          ),
        ]
      : [],
};

/** A field either works or is refused: archive_timeout means nothing without archiving. */
export const archiveTimeoutNeedsStoreRule: Rule = {
  name: "archive-timeout-needs-store",
  check: ({ db }) =>
    db.spec.backup?.archiveTimeoutSeconds !== undefined && db.spec.backup.objectStore === undefined
      ? [
          deny(
            "spec.backup.archiveTimeoutSeconds",
            "needs spec.backup.objectStore (nothing is archived without it)",
          ),
        ]
      : [],
};

export const backupRetentionRule: Rule = {
  name: "backup-retention",
  check: ({ db }) => {
    const retention = db.spec.backup?.retention;
    if (retention === undefined || (retention >= 1 && retention <= MAX_BACKUP_RETENTION)) return [];
    return [
      deny(
        "spec.backup.retention",
        `${retention} is out of range; allowed 1..${MAX_BACKUP_RETENTION} backups`,
      ),
    ];
  },
};

export const backupVolumeSizeRule: Rule = {
  name: "backup-volume-size",
  check: ({ db }) => {
    const size = db.spec.backup?.volume?.size;
    if (size === undefined) return [];
    const error = sizeError(size);
    if (error !== undefined) return [deny("spec.backup.volume.size", error)];
    return compareQuantities(size, 0) <= 0
      ? [deny("spec.backup.volume.size", `${size} must be greater than zero`)]
      : [];
  },
};

/** Like the data volume: the backup volume can grow, and its class is fixed once created. */
export const backupVolumeChangeRule: Rule = {
  name: "backup-volume-change",
  check: ({ db, old }) => {
    const now = db.spec.backup?.volume;
    const before = old?.spec.backup?.volume;
    if (!now || !before) return [];
    const denials: Denial[] = [];
    if (quantityBelow(now.size, before.size)) {
      denials.push(
        deny(
          "spec.backup.volume.size",
          `cannot shrink from ${before.size} to ${now.size}; the backup volume can only grow`,
        ),
      );
    }
    if (now.storageClassName !== before.storageClassName) {
      denials.push(
        deny(
          "spec.backup.volume.storageClassName",
          `cannot change from ${shown(before.storageClassName)} to ${shown(now.storageClassName)}; it is fixed once the volume exists`,
        ),
      );
    }
    return denials;
  },
};
