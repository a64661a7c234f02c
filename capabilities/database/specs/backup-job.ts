/**
 * The Job of one Backup (ADR 0013): pgBackRest as the repository host, reaching the instances'
 * TLS servers (`pgbackrest` sidecars) with the client certificate of `<db>-backup-tls`, and
 * writing into the Database's repository with the user's store keys. Owned by the Backup, never
 * by the Database: deleting the Database leaves its backups, their history and their Jobs.
 *
 * One attempt (backoffLimit 0): a failed backup is reported as failed with pgBackRest's words,
 * and the next one (on demand or scheduled) starts from nothing; pgBackRest resumes nothing
 * half-written in the repository it would not check first.
 */
import { createHash } from "node:crypto";
import type { V1Job, V1OwnerReference } from "@kubernetes/client-node";
import { commonLabels, LABEL_COMPONENT } from "../api/names";
import { CLIENT_TLS_FILES } from "./backup-tls";
import {
  BACKUP_TLS_DIR,
  BACKUP_TLS_VOLUME,
  CREDENTIALS_DIR,
  CREDENTIALS_VOLUME,
  PGBACKREST_CA_DIR,
  PGBACKREST_CA_FILE,
  PGBACKREST_CA_VOLUME,
  TMP_VOLUME,
} from "./layout";
import { BuildInput, identity, namesOf } from "./meta";
import { backupHostConf, repositoryPath } from "./pgbackrest";
import { podScheduling } from "./scheduling";
import {
  backupTlsVolume,
  caBundleVolume,
  credentialsVolume,
  REPO1_KEY_FILES,
  storeKeysProjection,
} from "./store-access";
import { BACKUP_JOB_SH } from "./scripts/backup-job";
import { jobPodBasics } from "./job-pod";
import { containerSecurityContext } from "./security";

/** On a backup Job and its pod: the Job's name (the Backup's, shortened to fit a label). */
export const LABEL_BACKUP = "pgkeeper.dev/backup";

const JOB_NAME_MAX = 63;

/**
 * A Backup's Job name, which its `LABEL_BACKUP` carries too: the Backup's, shortened with a hash
 * when longer than a label value allows.
 */
export function jobNameFor(backup: string): string {
  if (backup.length <= JOB_NAME_MAX) return backup;
  const hash = createHash("sha256").update(backup).digest("hex").slice(0, 8);
  return `${backup.slice(0, JOB_NAME_MAX - 9).replace(/-+$/, "")}-${hash}`;
}
export const BACKUP_JOB_CONTAINER = "pgbackrest";

export type BackupType = "full" | "diff" | "incr";

export interface BackupJobRequest {
  /** The Job's name (the Backup's). */
  name: string;
  /** The Backup that owns the Job. */
  owner: V1OwnerReference;
  type: BackupType;
  /** Instances (pod names) to back up, the primary first; a streaming standby second to copy from it. */
  instances: string[];
  /** pgBackRest `verify` of the new backup after it is taken. */
  verify: boolean;
}

/** An instance's DNS name, which the servers' wildcard certificate covers. */
/** pgBackRest's largest repo1-retention-full: expire nothing. */
const UNLIMITED_RETENTION = 9999999;

/** Label value of backup pods: they carry the Database label but must never look like instances. */
export const BACKUP_COMPONENT = "backup";
const instanceHost = (input: BuildInput, pod: string): string =>
  `${pod}.${namesOf(input).headlessService}.${identity(input.db).namespace}.svc`;

/** The Job, or undefined for a Database that does not back up to an object store. */
export function buildBackupJob(
  input: BuildInput,
  req: BackupJobRequest,
): (V1Job & { apiVersion: string; kind: string }) | undefined {
  const store = input.spec.backup?.objectStore;
  if (!store) return undefined;
  const id = identity(input.db);
  const { retention, retentionDays } = input.spec.backup ?? {};
  const conf = backupHostConf(
    { ...store, ...(store.ca ? { caFile: PGBACKREST_CA_FILE } : {}) },
    repositoryPath(store, { namespace: id.namespace, name: id.name, uid: id.uid }),
    {
      hosts: req.instances.map(pod => instanceHost(input, pod)),
      fromStandby: req.instances.length > 1,
      // With retentionDays the script expires (count as a minimum); pgBackRest alone must not.
      retentionFull: retentionDays === undefined ? retention : UNLIMITED_RETENTION,
      tls: CLIENT_TLS_FILES,
    },
  );
  const labels = {
    ...commonLabels(id.name),
    [LABEL_COMPONENT]: BACKUP_COMPONENT,
    [LABEL_BACKUP]: req.name,
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: req.name, namespace: id.namespace, labels, ownerReferences: [req.owner] },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels },
        spec: {
          ...jobPodBasics(input),
          containers: [
            {
              name: BACKUP_JOB_CONTAINER,
              image: input.spec.image,
              imagePullPolicy: "IfNotPresent",
              command: ["/bin/sh", "-c", BACKUP_JOB_SH],
              env: [
                { name: "PGKEEPER_PGBACKREST_CONF", value: conf },
                { name: "PGKEEPER_BACKUP_TYPE", value: req.type },
                { name: "PGKEEPER_BACKUP_VERIFY", value: req.verify ? "y" : "n" },
                ...(retentionDays === undefined
                  ? []
                  : [
                      { name: "PGKEEPER_RETENTION_FULL", value: String(retention ?? 1) },
                      { name: "PGKEEPER_RETENTION_DAYS", value: String(retentionDays) },
                    ]),
              ],
              terminationMessagePolicy: "File",
              securityContext: containerSecurityContext(),
              volumeMounts: [
                { name: TMP_VOLUME, mountPath: "/tmp" },
                { name: BACKUP_TLS_VOLUME, mountPath: BACKUP_TLS_DIR, readOnly: true },
                { name: CREDENTIALS_VOLUME, mountPath: CREDENTIALS_DIR, readOnly: true },
                ...(store.ca
                  ? [{ name: PGBACKREST_CA_VOLUME, mountPath: PGBACKREST_CA_DIR, readOnly: true }]
                  : []),
              ],
            },
          ],
          volumes: [
            { name: TMP_VOLUME, emptyDir: {} },
            backupTlsVolume(input),
            credentialsVolume(storeKeysProjection(store.credentials, REPO1_KEY_FILES)),
            ...caBundleVolume(PGBACKREST_CA_VOLUME, PGBACKREST_CA_FILE, store.ca),
          ],
          // The instances' nodes (nodeSelector, tolerations, user affinity), not their
          // anti-affinity.
          ...podScheduling(id.name, input.spec.scheduling, false),
        },
      },
    },
  };
}
