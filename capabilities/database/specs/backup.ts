/**
 * Scheduled base backups: the CronJob `<db>-backup` (only with spec.backup.schedule) writing into
 * the PersistentVolumeClaim `<db>-backups` (whenever spec.backup.volume is set).
 *
 * The claim outlives the schedule on purpose: removing the schedule stops new backups but must
 * not delete the existing ones, which a restore may still need. (Deleting the Database deletes
 * the claim through its owner reference.)
 */
import type { V1CronJob, V1EnvVar, V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { commonLabels, LABEL_COMPONENT } from "../api/names";
import {
  BACKUP_CONTAINER,
  BACKUP_DIR,
  BACKUP_VOLUME,
  ENV,
  POSTGRES_PORT,
  SUPERUSER,
  TMP_VOLUME,
} from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";
import { podScheduling } from "./scheduling";
import { BACKUP_SH } from "./scripts/backup";
import { containerSecurityContext, podSecurityContext } from "./security";

/** Label value of backup pods: they carry the Database label but must never look like instances. */
export const BACKUP_COMPONENT = "backup";
const BACKUP_HISTORY_LIMIT = 3;
const BACKUP_BACKOFF_LIMIT = 2;
/** A run that could not start within this window (operator or controller down) is skipped. */
const BACKUP_STARTING_DEADLINE_SECONDS = 3600;

function backupEnv(input: BuildInput): V1EnvVar[] {
  const names = namesOf(input);
  return [
    { name: ENV.pgMajor, value: input.spec.version },
    { name: "PGHOST", value: names.rwService },
    { name: "PGPORT", value: String(POSTGRES_PORT) },
    { name: "PGUSER", value: SUPERUSER },
    {
      name: "PGPASSWORD",
      valueFrom: { secretKeyRef: { name: names.superuserSecret, key: "password" } },
    },
    { name: ENV.retention, value: String(input.spec.backup?.retention) },
  ];
}

/**
 * The backup CronJob, or `undefined` when no schedule is set, or when the Database backs up to
 * an object store (its schedule makes Backup objects instead: reconcile/scheduled-backups.ts).
 */
export function buildBackupCronJob(input: BuildInput): Child<V1CronJob> | undefined {
  const schedule = input.spec.backup?.schedule;
  if (!schedule || input.spec.backup?.objectStore) return undefined;
  const names = namesOf(input);
  const labels = { ...commonLabels(identity(input.db).name), [LABEL_COMPONENT]: BACKUP_COMPONENT };
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: childMeta(input, names.backupCronJob, { [LABEL_COMPONENT]: BACKUP_COMPONENT }),
    spec: {
      schedule,
      // Two backups at once would compete for the one ReadWriteOnce volume and the primary's I/O.
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: BACKUP_STARTING_DEADLINE_SECONDS,
      successfulJobsHistoryLimit: BACKUP_HISTORY_LIMIT,
      failedJobsHistoryLimit: BACKUP_HISTORY_LIMIT,
      jobTemplate: {
        metadata: { labels },
        spec: {
          backoffLimit: BACKUP_BACKOFF_LIMIT,
          template: {
            metadata: { labels },
            spec: {
              restartPolicy: "Never",
              enableServiceLinks: false,
              securityContext: podSecurityContext(),
              containers: [
                {
                  name: BACKUP_CONTAINER,
                  image: input.spec.image,
                  imagePullPolicy: "IfNotPresent",
                  command: ["/bin/sh", "-c", BACKUP_SH],
                  env: backupEnv(input),
                  securityContext: containerSecurityContext(),
                  volumeMounts: [
                    { name: BACKUP_VOLUME, mountPath: BACKUP_DIR },
                    { name: TMP_VOLUME, mountPath: "/tmp" },
                  ],
                },
              ],
              volumes: [
                { name: BACKUP_VOLUME, persistentVolumeClaim: { claimName: names.backupVolume } },
                { name: TMP_VOLUME, emptyDir: {} },
              ],
              // Same nodes as the instances (nodeSelector, tolerations, user affinity), without
              // the anti-affinity that is about instances only.
              ...podScheduling(identity(input.db).name, input.spec.scheduling, false),
            },
          },
        },
      },
    },
  };
}

/** The backup volume claim, or `undefined` when spec.backup.volume is unset. */
export function buildBackupVolumeClaim(
  input: BuildInput,
): Child<V1PersistentVolumeClaim> | undefined {
  const volume = input.spec.backup?.volume;
  if (!volume) return undefined;
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: childMeta(input, namesOf(input).backupVolume, {
      [LABEL_COMPONENT]: BACKUP_COMPONENT,
    }),
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: volume.size } },
      ...(volume.storageClassName ? { storageClassName: volume.storageClassName } : {}),
    },
  };
}
