/**
 * The backup TLS material of a Database: what `<db>-backup-tls` holds while it is sound, else a
 * new CA and certificates. Sound means every part is there, the certificates chain to the CA,
 * the server certificate names the instances, and none expires within RENEW_BEFORE_DAYS. A
 * renewal replaces the Secret's files in the pods; the sidecar's wrapper restarts
 * `pgbackrest server` when its certificate changes, so no instance restarts.
 */
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { Database } from "../api/database";
import { childNames } from "../api/names";
import { Cluster, KubeObject } from "../cluster/cluster";
import { certificate, newKeyPair } from "../lib/x509";
import { BACKUP_TLS_KEYS, BackupTls } from "../specs/backup-tls";
import { BACKUP_CLIENT_CN } from "../specs/pgbackrest";

const DAY_MS = 24 * 3600 * 1000;
/** Certificates are issued for a year, and renewed a month before they end. */
export const TLS_LIFETIME_DAYS = 365;
export const RENEW_BEFORE_DAYS = 30;

/** A new CA, server certificate for `dnsNames` and client certificate, valid from `now`. */
export function issueBackupTls(db: string, dnsNames: string[], now: Date): BackupTls {
  // A minute back: a node whose clock is slightly behind must not see a certificate from the future.
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + TLS_LIFETIME_DAYS * DAY_MS);
  const ca = newKeyPair();
  const caName = `pgkeeper ${db} backup CA`;
  const caCert = certificate({
    commonName: caName,
    isCA: true,
    notBefore,
    // The CA outlives its leaves, so a leaf is never valid longer than what signed it.
    notAfter: new Date(notAfter.getTime() + DAY_MS),
    publicKeyDer: ca.publicKeyDer,
    selfKey: ca.key,
  });
  const leaf = (commonName: string, names: string[]) => {
    const pair = newKeyPair();
    const cert = certificate({
      commonName,
      dnsNames: names,
      isCA: false,
      notBefore,
      notAfter,
      publicKeyDer: pair.publicKeyDer,
      issuer: { commonName: caName, key: ca.key },
    });
    return { cert, key: pair.key };
  };
  const server = leaf(dnsNames[0] ?? db, dnsNames);
  const client = leaf(BACKUP_CLIENT_CN, []);
  return {
    ca: caCert,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
  };
}

/** The material a Secret holds, when it has every part. */
export function backupTlsOf(secret: KubeObject | undefined): BackupTls | undefined {
  const data = (secret?.data ?? {}) as Record<string, string | undefined>;
  const parts = Object.entries(BACKUP_TLS_KEYS).map(([part, key]) => {
    const value = data[key];
    return [part, value ? Buffer.from(value, "base64").toString("utf8") : undefined] as const;
  });
  if (parts.some(([, value]) => !value)) return undefined;
  return Object.fromEntries(parts) as unknown as BackupTls;
}

/**
 * What the certificates say whatever the time: when each ends, and what is wrong with them
 * (parsing, signatures and key derivation are costly, so this is done once per Secret).
 */
interface Inspection {
  expiries: (readonly [what: string, validTo: string])[];
  problem?: string;
}

function inspect(tls: BackupTls, dnsNames: string[]): Inspection {
  try {
    const ca = new X509Certificate(tls.ca);
    const server = new X509Certificate(tls.serverCert);
    const client = new X509Certificate(tls.clientCert);
    const expiries = [
      ["CA", ca.validTo],
      ["server certificate", server.validTo],
      ["client certificate", client.validTo],
    ] as const;
    if (!server.verify(ca.publicKey) || !client.verify(ca.publicKey)) {
      return { expiries: [...expiries], problem: "a certificate is not signed by the CA" };
    }
    const sans = (server.subjectAltName ?? "").split(", ").map(s => s.replace(/^DNS:/, ""));
    const missing = dnsNames.filter(n => !sans.includes(n));
    if (missing.length > 0) {
      const problem = `the server certificate does not name ${missing.join(", ")}`;
      return { expiries: [...expiries], problem };
    }
    if (!keyMatches(tls.serverKey, server) || !keyMatches(tls.clientKey, client)) {
      return { expiries: [...expiries], problem: "a key does not belong to its certificate" };
    }
    return { expiries: [...expiries] };
  } catch (err) {
    return { expiries: [], problem: `the Secret does not parse (${(err as Error).message})` };
  }
}

function reasonAt({ expiries, problem }: Inspection, now: Date): string | undefined {
  const renewBy = now.getTime() + RENEW_BEFORE_DAYS * DAY_MS;
  const ending = expiries.find(([, validTo]) => Date.parse(validTo) <= renewBy);
  return ending ? `the ${ending[0]} expires ${ending[1]}` : problem;
}

/** Why `tls` must be issued anew at `now` (undefined when it is sound). */
export const renewalReason = (tls: BackupTls, dnsNames: string[], now: Date): string | undefined =>
  reasonAt(inspect(tls, dnsNames), now);

/**
 * Inspections by Secret object: the read cache hands out the same object until the Secret
 * changes, so each reconcile only compares dates. Weak: a replaced Secret's entry goes with it.
 */
const inspections = new WeakMap<object, { names: string; inspection: Inspection }>();

function inspectStored(secret: KubeObject, tls: BackupTls, dnsNames: string[]): Inspection {
  const names = dnsNames.join(" ");
  const known = inspections.get(secret);
  if (known?.names === names) return known.inspection;
  const inspection = inspect(tls, dnsNames);
  inspections.set(secret, { names, inspection });
  return inspection;
}

function keyMatches(key: string, cert: X509Certificate): boolean {
  const fromKey = createPublicKey(createPrivateKey(key)).export({ type: "spki", format: "der" });
  return fromKey.equals(cert.publicKey.export({ type: "spki", format: "der" }));
}

/** The material for `<db>-backup-tls`: the stored one while sound, else a new one. */
export async function ensureBackupTls(
  cluster: Cluster,
  db: Database,
  dnsNames: string[],
  now: Date,
): Promise<BackupTls> {
  const name = db.metadata?.name ?? "";
  const secret = await cluster.get({
    apiVersion: "v1",
    kind: "Secret",
    namespace: db.metadata?.namespace ?? "",
    name: childNames(name).backupTlsSecret,
  });
  const stored = backupTlsOf(secret);
  if (secret && stored && reasonAt(inspectStored(secret, stored, dnsNames), now) === undefined) {
    return stored;
  }
  return issueBackupTls(name, dnsNames, now);
}
