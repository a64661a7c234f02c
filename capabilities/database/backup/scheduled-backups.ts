/**
 * spec.backup.schedule with an object store: a full Backup object at each scheduled time, named
 * after it (`<db>-<yyyymmddhhmm>`, UTC), so creating it twice is impossible and `kubectl get
 * backups` is the history. Level-based: each reconcile looks for the latest fire time in the
 * last hour and creates its Backup when missing; a time missed by more than that (operator
 * down) is skipped, as a CronJob's startingDeadlineSeconds would. Never a time before the
 * Database existed.
 */
import { Database } from "../api/database";
import { BACKUP_REF } from "../api/kinds";
import { commonLabels } from "../api/names";
import { KubeObject } from "../cluster/cluster";
import { lastFireTime, nextFireTime } from "../lib/cron-times";

export const SCHEDULE_WINDOW_MINUTES = 60;
/** On a Backup made from the schedule: the time it was scheduled for. */
export const ANNOTATION_SCHEDULED_FOR = "pgkeeper.dev/scheduled-for";

const stamp = (t: Date): string => t.toISOString().replace(/[-:T]/g, "").slice(0, 12);

/** The Backup the schedule wants now and that does not exist yet, or undefined. */
export function scheduledBackup(
  db: Database,
  schedule: string,
  existing: ReadonlySet<string>,
  now: Date,
): KubeObject | undefined {
  const fire = lastFireTime(schedule, now, SCHEDULE_WINDOW_MINUTES);
  const name = db.metadata?.name ?? "";
  const createdAt = Date.parse(String(db.metadata?.creationTimestamp ?? ""));
  if (!fire || (Number.isFinite(createdAt) && fire.getTime() < createdAt)) return undefined;
  const backup = `${name}-${stamp(fire)}`;
  if (existing.has(backup)) return undefined;
  return fullBackup(db, backup, { [ANNOTATION_SCHEDULED_FOR]: fire.toISOString() });
}

/** A full Backup `backup` of Database `db`, as the operator makes one (a schedule, an upgrade). */
export function fullBackup(
  db: Database,
  backup: string,
  annotations?: Record<string, string>,
): KubeObject {
  const name = db.metadata?.name ?? "";
  return {
    ...BACKUP_REF,
    metadata: {
      name: backup,
      namespace: db.metadata?.namespace,
      labels: commonLabels(name),
      ...(annotations ? { annotations } : {}),
    },
    spec: { database: name, type: "full" },
  };
}

/** How long until the next look: the next fire time, at most the window. */
export function untilNextFireMs(schedule: string, now: Date): number {
  const next = nextFireTime(schedule, now, SCHEDULE_WINDOW_MINUTES);
  return next ? Math.max(next.getTime() - now.getTime(), 1000) : SCHEDULE_WINDOW_MINUTES * 60_000;
}
