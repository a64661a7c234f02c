/**
 * The Secret `<db>-backup-tls` of a Database that backs up to an object store: the CAs both sides
 * trust (the Database's one CA, and while a move to it lasts the one before), the certificate of
 * the pgBackRest TLS server every instance runs (one wildcard name covers every instance behind
 * the headless Service, so scaling needs no new certificate), and the backup host's client
 * certificate, the only client those servers accept (ADR 0013, 0021). Never the CA's key.
 *
 * The key material comes in as an argument (pki/backup-tls.ts issues it from the Database's CA
 * and then passes back what the Secret holds), so this builder is pure.
 */
import type { V1Secret } from "@kubernetes/client-node";
import { ANNOTATION_TRUST_CHANGED_AT } from "../api/names";
import { BACKUP_TLS_DIR } from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";
import type { TlsFiles } from "./pgbackrest";

/** PEM text of everything the Secret holds. */
export interface BackupTls {
  /** The CAs both sides trust, one PEM after the other. */
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** While trust moves to another CA: when the current step of the move began (ISO time). */
  trustChangedAt?: string;
}

/** The PEM parts of the material, each a key of the Secret. */
export type BackupTlsPart = Exclude<keyof BackupTls, "trustChangedAt">;

/** The Secret's key for each part (also the file name where it is mounted). */
export const BACKUP_TLS_KEYS: Record<BackupTlsPart, string> = {
  ca: "ca.crt",
  serverCert: "server.crt",
  serverKey: "server.key",
  clientCert: "client.crt",
  clientKey: "client.key",
};

const mounted = (part: BackupTlsPart): string => `${BACKUP_TLS_DIR}/${BACKUP_TLS_KEYS[part]}`;

/** The files the instances' TLS servers use. */
export const SERVER_TLS_FILES: TlsFiles = {
  ca: mounted("ca"),
  cert: mounted("serverCert"),
  key: mounted("serverKey"),
};

/** The files the backup host (a Job) uses. */
export const CLIENT_TLS_FILES: TlsFiles = {
  ca: mounted("ca"),
  cert: mounted("clientCert"),
  key: mounted("clientKey"),
};

/** DNS names the backup host reaches an instance by: `<pod>.<db>-hl.<namespace>.svc[.cluster.local]`. */
export function serverDnsNames(input: BuildInput): string[] {
  const service = `${namesOf(input).headlessService}.${identity(input.db).namespace}.svc`;
  return [`*.${service}`, `*.${service}.cluster.local`];
}

export function buildBackupTlsSecret(
  input: BuildInput,
  tls: BackupTls | undefined,
): Child<V1Secret> | undefined {
  if (!input.spec.backup?.objectStore || !tls) return undefined;
  const data = Object.fromEntries(
    (Object.keys(BACKUP_TLS_KEYS) as BackupTlsPart[]).map(part => [
      BACKUP_TLS_KEYS[part],
      Buffer.from(tls[part], "utf8").toString("base64"),
    ]),
  );
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      ...childMeta(input, namesOf(input).backupTlsSecret),
      ...(tls.trustChangedAt
        ? { annotations: { [ANNOTATION_TRUST_CHANGED_AT]: tls.trustChangedAt } }
        : {}),
    },
    type: "Opaque",
    data,
  };
}
