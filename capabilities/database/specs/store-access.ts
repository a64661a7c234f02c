/**
 * How a pod reaches an object store: its keys from the user's Secret as environment variables
 * (never in a file), its CA bundle from the user's Secret as a file, and the Database's backup
 * TLS Secret. Shared by the instances (archiving, restore, the pgbackrest sidecar) and the backup
 * Jobs.
 */
import type { V1EnvVar, V1Volume } from "@kubernetes/client-node";
import type { ResolvedStoreAccess } from "../api/defaults";
import { BACKUP_TLS_VOLUME } from "./layout";
import { BuildInput, namesOf } from "./meta";

/** The store's keys under the variable names `names` (pgBackRest's own, or a source's). */
export function storeKeysEnv(
  credentials: ResolvedStoreAccess["credentials"] | undefined,
  names: { id: string; secret: string },
): V1EnvVar[] {
  if (!credentials) return [];
  const fromSecret = (name: string, key: string): V1EnvVar => ({
    name,
    valueFrom: { secretKeyRef: { name: credentials.secretName, key } },
  });
  return [
    fromSecret(names.id, credentials.accessKeyIdKey),
    fromSecret(names.secret, credentials.secretAccessKeyKey),
  ];
}

/** pgBackRest's own variable names for repository 1's keys. */
export const REPO1_KEYS = {
  id: "PGBACKREST_REPO1_S3_KEY",
  secret: "PGBACKREST_REPO1_S3_KEY_SECRET",
};

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
