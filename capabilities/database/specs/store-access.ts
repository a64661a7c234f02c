/**
 * How a pod reaches an object store: its keys from the user's Secret as files of the credentials
 * volume (layout.ts says why not variables), its CA bundle from the user's Secret as a file, and
 * the Database's backup TLS Secret. Shared by the instances (archiving, restore, the pgbackrest
 * sidecar) and the backup Jobs.
 */
import type { V1Volume, V1VolumeProjection } from "@kubernetes/client-node";
import type { ResolvedStoreAccess } from "../api/defaults";
import { BACKUP_TLS_VOLUME, CREDENTIAL_FILES, CREDENTIALS_VOLUME } from "./layout";
import { BuildInput, namesOf } from "./meta";

/** The store's keys from the user's Secret, as the files `files` of the credentials volume. */
export function storeKeysProjection(
  credentials: ResolvedStoreAccess["credentials"] | undefined,
  files: { id: string; secret: string },
): V1VolumeProjection[] {
  if (!credentials) return [];
  return [
    {
      secret: {
        name: credentials.secretName,
        items: [
          { key: credentials.accessKeyIdKey, path: files.id },
          { key: credentials.secretAccessKeyKey, path: files.secret },
        ],
      },
    },
  ];
}

/** The files of repository 1's keys (this Database's own store). */
export const REPO1_KEY_FILES = {
  id: CREDENTIAL_FILES.repo1S3Key,
  secret: CREDENTIAL_FILES.repo1S3KeySecret,
};

/** The credentials volume of `sources`: 0440 with the pod's fsGroup, like the TLS keys. */
export const credentialsVolume = (sources: V1VolumeProjection[]): V1Volume => ({
  name: CREDENTIALS_VOLUME,
  projected: { sources, defaultMode: 0o440 },
});

/** A CA bundle from the user's Secret, as `file` in the volume `name`. */
export function caBundleVolume(
  name: string,
  file: string,
  ca: { secretName: string; key: string } | undefined,
): V1Volume[] {
  if (!ca) return [];
  const path = file.slice(file.lastIndexOf("/") + 1);
  return [{ name, secret: { secretName: ca.secretName, items: [{ key: ca.key, path }] } }];
}

/** `<db>-backup-tls` as a volume. */
export function backupTlsVolume(input: BuildInput): V1Volume {
  return {
    name: BACKUP_TLS_VOLUME,
    // 0400 owner-only is too strict for the postgres user of another image; 0440 with the
    // pod's fsGroup keeps the keys from everyone else.
    secret: { secretName: namesOf(input).backupTlsSecret, defaultMode: 0o440 },
  };
}
