/**
 * The backup TLS material of a Database (`<db>-backup-tls`, ADR 0013): the pgBackRest server
 * certificate of the instances and the backup host's client certificate, both issued by the
 * Database's one CA (database-tls.ts) under the one renewal policy (ADR 0021).
 *
 * Both sides verify each other against the Secret's ca.crt, and the kubelet brings a changed
 * Secret to each pod in its own time (a minute or so), so trust moves to another CA in three
 * steps, each one `overlapMs` after the one before, and no pod ever holds a certificate its peer
 * does not trust yet:
 *   1. trust both: ca.crt holds the new CA and the old, the certificates stay the old CA's;
 *   2. certificates from the new CA, ca.crt still holding both;
 *   3. ca.crt holds the new CA only.
 * That is how a Database from before the one CA (its backup certificates signed by a CA of their
 * own) moves to it, and how the backup side follows a replaced CA. The instances' pgBackRest
 * servers load the files anew when they change (specs/scripts/pgbackrest-server.sh); PostgreSQL
 * itself never restarts for it. A Secret whose certificates are unusable anyway (missing, expired,
 * of no CA it lists) is replaced at once: there is no trust to keep.
 */
import { ownChildRead } from "../cluster/own-child-read";
import { X509Certificate } from "node:crypto";
import { Database } from "../api/database";
import { ANNOTATION_TRUST_CHANGED_AT, childNames } from "../api/names";
import { Cluster, KubeObject } from "../cluster/cluster";
import { BACKUP_TLS_KEYS, BackupTls, BackupTlsPart } from "../specs/backup-tls";
import { BACKUP_CLIENT_CN } from "../specs/pgbackrest";
import { Ca, KeyPair, LeafSpec, ensureLeaf, issueLeaf, leafProblem } from "./certificates";
import { decoded, memoized } from "./secret-data";

/** Each step of a move waits this long by default: well past the kubelet's refresh of a Secret. */
export const TRUST_OVERLAP_MS = 10 * 60 * 1000;

/** What `<db>-backup-tls` holds, when it has every part. */
export function backupTlsOf(secret: KubeObject | undefined): BackupTls | undefined {
  const parts = (Object.entries(BACKUP_TLS_KEYS) as [BackupTlsPart, string][]).map(
    ([part, key]) => [part, decoded(secret, key)] as const,
  );
  if (parts.some(([, value]) => !value)) return undefined;
  const changedAt = secret?.metadata?.annotations?.[ANNOTATION_TRUST_CHANGED_AT];
  return {
    ...(Object.fromEntries(parts) as Record<BackupTlsPart, string>),
    ...(changedAt ? { trustChangedAt: changedAt } : {}),
  };
}

/** The certificates of a PEM bundle, in order. */
export const certificatesIn = (bundle: string): string[] =>
  bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];

const sameCertificate = (a: string, b: string): boolean =>
  new X509Certificate(a).raw.equals(new X509Certificate(b).raw);

export interface BackupTlsPlan {
  tls: BackupTls;
  /** A move is under way: look again this soon to take its next step. */
  lookAgainMs?: number;
}

const leafSpecs = (dnsNames: string[]): Record<"server" | "client", LeafSpec> => ({
  server: { commonName: dnsNames[0] ?? "pgbackrest", dnsNames },
  client: { commonName: BACKUP_CLIENT_CN },
});

const withPairs = (ca: string, server: KeyPair, client: KeyPair): BackupTls => ({
  ca,
  serverCert: server.cert,
  serverKey: server.key,
  clientCert: client.cert,
  clientKey: client.key,
});

/** Fresh certificates from `ca`, trusted by `ca` alone. */
function issued(ca: Ca, dnsNames: string[], now: Date): BackupTls {
  const specs = leafSpecs(dnsNames);
  return withPairs(ca.cert, issueLeaf(ca, specs.server, now), issueLeaf(ca, specs.client, now));
}

/** The stored certificates, each sound under some CA of the stored bundle other than `ca`. */
function soundUnderAnother(stored: BackupTls, ca: Ca, dnsNames: string[], now: Date): boolean {
  const others = certificatesIn(stored.ca).filter(c => !sameCertificate(c, ca.cert));
  const sound = (pair: KeyPair, names: string[]) =>
    others.some(other => leafProblem(new X509Certificate(other), pair, names, now) === undefined);
  return (
    sound({ cert: stored.serverCert, key: stored.serverKey }, dnsNames) &&
    sound({ cert: stored.clientCert, key: stored.clientKey }, [])
  );
}

const signedBy = (ca: Ca, cert: string): boolean => {
  try {
    return new X509Certificate(cert).verify(ca.x509.publicKey);
  } catch {
    return false;
  }
};

/** How long until `overlapMs` has passed since the step that began at `changedAt` (0: it has). */
const remaining = (changedAt: string | undefined, now: Date, overlapMs: number): number =>
  changedAt === undefined
    ? overlapMs
    : Math.max(0, Date.parse(changedAt) + overlapMs - now.getTime());

/**
 * What `<db>-backup-tls` must hold at `now`: the stored material while it is sound (its
 * certificates renewed by `ca` when due), the next step of a move to `ca`, or fresh material.
 * Pure but for key generation.
 */
export function backupTlsMaterial(
  stored: BackupTls | undefined,
  ca: Ca,
  dnsNames: string[],
  now: Date,
  overlapMs = TRUST_OVERLAP_MS,
): BackupTlsPlan {
  if (!stored) return { tls: issued(ca, dnsNames, now) };
  const specs = leafSpecs(dnsNames);
  const changedAt = now.toISOString();
  if (signedBy(ca, stored.serverCert) && signedBy(ca, stored.clientCert)) {
    const server = ensureLeaf(
      ca,
      { cert: stored.serverCert, key: stored.serverKey },
      specs.server,
      now,
    );
    const client = ensureLeaf(
      ca,
      { cert: stored.clientCert, key: stored.clientKey },
      specs.client,
      now,
    );
    const onlyCa = certificatesIn(stored.ca).every(c => sameCertificate(c, ca.cert));
    const wait = remaining(stored.trustChangedAt, now, overlapMs);
    // Step 3 once the certificates from `ca` had time to reach every pod.
    if (onlyCa || wait === 0) return { tls: withPairs(ca.cert, server, client) };
    const tls = { ...withPairs(stored.ca, server, client), trustChangedAt: stored.trustChangedAt };
    return { tls, lookAgainMs: wait };
  }
  if (!soundUnderAnother(stored, ca, dnsNames, now)) return { tls: issued(ca, dnsNames, now) };
  const trusted = certificatesIn(stored.ca);
  if (!trusted.some(c => sameCertificate(c, ca.cert))) {
    // Step 1: trust `ca` beside the CA the certificates are from.
    const bundle = [ca.cert, ...trusted].join("");
    return { tls: { ...stored, ca: bundle, trustChangedAt: changedAt }, lookAgainMs: overlapMs };
  }
  const wait = remaining(stored.trustChangedAt, now, overlapMs);
  if (stored.trustChangedAt === undefined)
    return { tls: { ...stored, trustChangedAt: changedAt }, lookAgainMs: overlapMs };
  if (wait > 0) return { tls: stored, lookAgainMs: wait };
  // Step 2: every pod trusts `ca` by now; certificates from it.
  const fresh = issued(ca, dnsNames, now);
  return { tls: { ...fresh, ca: stored.ca, trustChangedAt: changedAt }, lookAgainMs: overlapMs };
}

export interface BackupTlsInput {
  /** The Database's one CA, as this pass issues or keeps it (database-tls.ts). */
  ca: Ca;
  /** The names the instances' pgBackRest servers are reached by. */
  dnsNames: string[];
  now: Date;
  /** How long each step of a move waits (default TRUST_OVERLAP_MS). */
  overlapMs?: number;
}

/**
 * The material for `<db>-backup-tls` from the Database's CA. Remembered per stored Secret object
 * and CA while no move is under way (secret-data.ts): a steady pass parses nothing.
 */
export async function ensureBackupTls(
  cluster: Cluster,
  db: Database,
  { ca, dnsNames, now, overlapMs = TRUST_OVERLAP_MS }: BackupTlsInput,
): Promise<BackupTlsPlan> {
  const secret = await cluster.get(
    {
      apiVersion: "v1",
      kind: "Secret",
      namespace: db.metadata?.namespace ?? "",
      name: childNames(db.metadata?.name ?? "").backupTlsSecret,
    },
    ownChildRead(db),
  );
  const compute = () => backupTlsMaterial(backupTlsOf(secret), ca, dnsNames, now, overlapMs);
  if (!secret || secret.metadata?.annotations?.[ANNOTATION_TRUST_CHANGED_AT]) return compute();
  // Per day and CA: a renewal is decided by the date, and a new CA starts a move.
  const key = `backup|${ca.cert}|${dnsNames.join(" ")}|${now.toISOString().slice(0, 10)}`;
  return memoized([secret], key, compute);
}
