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

/** Why `tls` must be issued anew at `now` (undefined when it is sound). */
export function renewalReason(tls: BackupTls, dnsNames: string[], now: Date): string | undefined {
  try {
    const ca = new X509Certificate(tls.ca);
    const server = new X509Certificate(tls.serverCert);
    const client = new X509Certificate(tls.clientCert);
    const renewBy = now.getTime() + RENEW_BEFORE_DAYS * DAY_MS;
    for (const [what, cert] of [
      ["CA", ca],
      ["server certificate", server],
      ["client certificate", client],
    ] as const) {
      if (Date.parse(cert.validTo) <= renewBy) return `the ${what} expires ${cert.validTo}`;
    }
    if (!server.verify(ca.publicKey) || !client.verify(ca.publicKey)) {
      return "a certificate is not signed by the CA";
    }
    const sans = (server.subjectAltName ?? "").split(", ").map(s => s.replace(/^DNS:/, ""));
    const missing = dnsNames.filter(n => !sans.includes(n));
    if (missing.length > 0) return `the server certificate does not name ${missing.join(", ")}`;
    if (!keyMatches(tls.serverKey, server) || !keyMatches(tls.clientKey, client)) {
      return "a key does not belong to its certificate";
    }
    return undefined;
  } catch (err) {
    return `the Secret does not parse (${(err as Error).message})`;
  }
}

function keyMatches(key: string, cert: X509Certificate): boolean {
  const fromKey = createPublicKey(createPrivateKey(key)).export({ type: "spki", format: "der" });
  return fromKey.equals(cert.publicKey.export({ type: "spki", format: "der" }));
}

/**
 * The material for `<db>-backup-tls`: the stored one while sound, else a new one (the reason is
 * returned so the caller can say why the Secret changed).
 */
export async function ensureBackupTls(
  cluster: Cluster,
  db: Database,
  dnsNames: string[],
  now: Date,
): Promise<{ tls: BackupTls; renewed?: string }> {
  const name = db.metadata?.name ?? "";
  const secret = await cluster.get({
    apiVersion: "v1",
    kind: "Secret",
    namespace: db.metadata?.namespace ?? "",
    name: childNames(name).backupTlsSecret,
  });
  const stored = backupTlsOf(secret);
  const reason = stored ? renewalReason(stored, dnsNames, now) : "no certificates yet";
  if (stored && reason === undefined) return { tls: stored };
  return { tls: issueBackupTls(name, dnsNames, now), renewed: reason };
}
