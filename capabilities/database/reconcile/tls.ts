/**
 * The TLS material of a Database (specs/tls.ts, ADR 0017): what `<db>-ca` and `<db>-tls` hold
 * while it is sound, with each part that is not renewed.
 *
 * - The CA lives ten years. Only when it is missing, unreadable or near its end is a new one made,
 *   and every leaf with it (clients must then take the new ca.crt from `<db>-app`).
 * - Leaves (server, replication, the operator's two) live a year and are renewed by the same CA a month
 *   before they end, or at once when they do not chain to it, do not match their key or (the
 *   server's) do not name every Service: clients keep trusting the same ca.crt throughout.
 * A renewed server certificate reaches the pods through the mounted Secret; ha/ reloads each
 * instance once the certificate it serves is not the Secret's (no restart).
 */
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { Database } from "../api/database";
import { childNames } from "../api/names";
import { Cluster, KubeObject } from "../cluster/cluster";
import { certificate, newKeyPair } from "../lib/x509";
import type { BuildInput } from "../specs";
import { MONITOR_USER, REPLICATION_USER, SUPERUSER } from "../specs/layout";
import { OperatorTls, mountsTls } from "../instance/targets";
import { CA_SECRET_KEYS, DatabaseTls, TLS_SECRET_KEYS, USER_SERVER_KEYS } from "../specs/tls";
import { ReconcileError } from "./errors";

const DAY_MS = 24 * 3600 * 1000;
export const CA_LIFETIME_DAYS = 3650;
export const LEAF_LIFETIME_DAYS = 365;
export const RENEW_BEFORE_DAYS = 30;

type Leaf = "server" | "replication" | "operator" | "monitor";

interface Ca {
  cert: string;
  key: string;
  name: string;
}

/** The leaves, with the common name each certificate carries (a client's is its role). */
const LEAVES: Record<Leaf, { commonName: (db: string) => string }> = {
  server: { commonName: db => `${db}-rw` },
  replication: { commonName: () => REPLICATION_USER },
  operator: { commonName: () => SUPERUSER },
  monitor: { commonName: () => MONITOR_USER },
};

const caName = (db: string): string => `pgkeeper ${db} CA`;

// A minute back: a node whose clock is slightly behind must not see a certificate from the future.
const startOf = (now: Date): Date => new Date(now.getTime() - 60_000);

export function issueCa(db: string, now: Date): Ca {
  const pair = newKeyPair();
  const name = caName(db);
  const cert = certificate({
    commonName: name,
    isCA: true,
    notBefore: startOf(now),
    notAfter: new Date(now.getTime() + CA_LIFETIME_DAYS * DAY_MS),
    publicKeyDer: pair.publicKeyDer,
    selfKey: pair.key,
  });
  return { cert, key: pair.key, name };
}

function issueLeaf(ca: Ca, leaf: Leaf, db: string, dnsNames: string[], now: Date) {
  const pair = newKeyPair();
  const cert = certificate({
    commonName: LEAVES[leaf].commonName(db),
    dnsNames: leaf === "server" ? dnsNames : [],
    isCA: false,
    notBefore: startOf(now),
    // Never beyond the CA: a leaf must not outlive what signed it.
    notAfter: new Date(
      Math.min(
        now.getTime() + LEAF_LIFETIME_DAYS * DAY_MS,
        Date.parse(new X509Certificate(ca.cert).validTo),
      ),
    ),
    publicKeyDer: pair.publicKeyDer,
    issuer: { commonName: ca.name, key: ca.key },
  });
  return { cert, key: pair.key };
}

const decoded = (secret: KubeObject | undefined, key: string): string | undefined => {
  const value = (secret?.data as Record<string, string | undefined> | undefined)?.[key];
  return value ? Buffer.from(value, "base64").toString("utf8") : undefined;
};

function keyMatches(key: string, cert: X509Certificate): boolean {
  const fromKey = createPublicKey(createPrivateKey(key)).export({ type: "spki", format: "der" });
  return fromKey.equals(cert.publicKey.export({ type: "spki", format: "der" }));
}

const endsWithin = (validTo: string, now: Date, days: number): boolean =>
  Date.parse(validTo) <= now.getTime() + days * DAY_MS;

/** Why the stored CA cannot go on signing (undefined: it can). */
export function caProblem(
  cert: string | undefined,
  key: string | undefined,
  now: Date,
): string | undefined {
  if (!cert || !key) return "no CA";
  try {
    const parsed = new X509Certificate(cert);
    if (!parsed.ca || !keyMatches(key, parsed)) return "the CA's key does not match it";
    // A year left: every leaf it signs must still get its full year.
    if (endsWithin(parsed.validTo, now, LEAF_LIFETIME_DAYS)) return `the CA ends ${parsed.validTo}`;
    return undefined;
  } catch (err) {
    return `the CA does not parse (${(err as Error).message})`;
  }
}

/** Why a stored leaf must be issued anew (undefined: it is sound). */
export function leafProblem(
  ca: X509Certificate,
  pair: { cert?: string; key?: string },
  dnsNames: string[],
  now: Date,
  renewBeforeDays = RENEW_BEFORE_DAYS,
): string | undefined {
  if (!pair.cert || !pair.key) return "missing";
  try {
    const cert = new X509Certificate(pair.cert);
    if (!cert.verify(ca.publicKey)) return "not signed by the CA";
    if (!keyMatches(pair.key, cert)) return "its key does not match it";
    const sans = (cert.subjectAltName ?? "").split(", ").map(s => s.replace(/^DNS:/, ""));
    const missing = dnsNames.filter(n => !sans.includes(n));
    if (missing.length > 0) return `it does not name ${missing.join(", ")}`;
    if (Date.parse(cert.validFrom) > now.getTime())
      return `it is valid only from ${cert.validFrom}`;
    if (endsWithin(cert.validTo, now, renewBeforeDays)) return `it ends ${cert.validTo}`;
    return undefined;
  } catch (err) {
    return `it does not parse (${(err as Error).message})`;
  }
}

/** What the Secrets hold: `<db>-ca`, `<db>-tls` and the user's server Secret (any may be missing). */
export interface StoredTls {
  ca?: KubeObject;
  tls?: KubeObject;
  /** spec.tls.serverSecretName's Secret, when the spec names one. */
  user?: { name: string; secret?: KubeObject };
}

const pairIn = (secret: KubeObject | undefined, cert: string, key: string) => ({
  cert: decoded(secret, cert),
  key: decoded(secret, key),
});

/** The user's server certificate, checked as clients will: it must name every Service. */
function userServer(user: NonNullable<StoredTls["user"]>, dnsNames: string[], now: Date) {
  const refuse = (why: string) =>
    new ReconcileError(
      "ServerCertificateInvalid",
      `Secret ${user.name} (spec.tls.serverSecretName): ${why}`,
    );
  if (!user.secret) throw refuse("does not exist");
  const pair = pairIn(user.secret, USER_SERVER_KEYS.cert, USER_SERVER_KEYS.key);
  const ca = decoded(user.secret, USER_SERVER_KEYS.ca);
  if (!ca) throw refuse(`has no ${USER_SERVER_KEYS.ca} (clients verify the server with it)`);
  let problem: string | undefined;
  try {
    problem = leafProblem(new X509Certificate(ca), pair, dnsNames, now, 0);
  } catch (err) {
    problem = `its ${USER_SERVER_KEYS.ca} does not parse (${(err as Error).message})`;
  }
  if (problem) throw refuse(`its certificate: ${problem}`);
  return { cert: pair.cert!, key: pair.key!, ca };
}

/**
 * The material to apply, from what the Secrets hold. Throws a ReconcileError when the user's
 * server Secret cannot be served (missing, incomplete, not naming the Services, expired).
 */
export function tlsMaterial(
  db: string,
  stored: StoredTls,
  dnsNames: string[],
  now: Date,
): DatabaseTls {
  const kept = pairIn(stored.ca, CA_SECRET_KEYS.caCert, CA_SECRET_KEYS.caKey);
  const ca: Ca =
    caProblem(kept.cert, kept.key, now) === undefined
      ? { cert: kept.cert!, key: kept.key!, name: caName(db) }
      : issueCa(db, now);
  // The issuer name of a kept CA is its own subject, whatever this version would call it.
  const caCert = new X509Certificate(ca.cert);
  const signer: Ca = { ...ca, name: caCert.subject.replace(/^CN=/, "") };
  const storedLeaves: Record<Leaf, { cert?: string; key?: string }> = {
    server: pairIn(stored.tls, TLS_SECRET_KEYS.serverCert, TLS_SECRET_KEYS.serverKey),
    replication: pairIn(
      stored.tls,
      TLS_SECRET_KEYS.replicationCert,
      TLS_SECRET_KEYS.replicationKey,
    ),
    operator: pairIn(stored.ca, CA_SECRET_KEYS.operatorCert, CA_SECRET_KEYS.operatorKey),
    monitor: pairIn(stored.ca, CA_SECRET_KEYS.monitorCert, CA_SECRET_KEYS.monitorKey),
  };
  const leaf = (name: Leaf) => {
    const names = name === "server" ? dnsNames : [];
    const pair = storedLeaves[name];
    return leafProblem(caCert, pair, names, now) === undefined
      ? { cert: pair.cert!, key: pair.key! }
      : issueLeaf(signer, name, db, names, now);
  };
  const server = stored.user
    ? userServer(stored.user, dnsNames, now)
    : { ...leaf("server"), ca: ca.cert };
  const replication = leaf("replication");
  const operator = leaf("operator");
  const monitor = leaf("monitor");
  return {
    caCert: ca.cert,
    caKey: ca.key,
    serverCa: server.ca,
    serverCert: server.cert,
    serverKey: server.key,
    replicationCert: replication.cert,
    replicationKey: replication.key,
    operatorCert: operator.cert,
    operatorKey: operator.key,
    monitorCert: monitor.cert,
    monitorKey: monitor.key,
  };
}

/**
 * Results by the Secret objects: the read cache hands out the same objects until they change, so
 * a reconcile of a Database whose material is sound parses nothing. Weak: replaced Secrets take
 * their entry with them. (A user's server Secret is read from the API each time: it carries no
 * label of ours, so no watch keeps it; cert-manager's renewals are copied in at the next pass.)
 */
const known = new WeakMap<object, WeakMap<object, { key: string; tls: DatabaseTls }>>();

/** What the Secrets of `db` hold now. */
async function readStored(cluster: Cluster, db: Database): Promise<StoredTls> {
  const namespace = db.metadata?.namespace ?? "";
  const names = childNames(db.metadata?.name ?? "");
  const read = (name: string) => cluster.get({ apiVersion: "v1", kind: "Secret", namespace, name });
  const userName = db.spec?.tls?.serverSecretName;
  const [ca, tls, user] = await Promise.all([
    read(names.caSecret),
    read(names.tlsSecret),
    userName ? read(userName) : undefined,
  ]);
  return { ca, tls, ...(userName ? { user: { name: userName, secret: user } } : {}) };
}

/** `compute()`, or what it gave for the same stored objects and `key` before. */
function remembered(stored: StoredTls, key: string, compute: () => DatabaseTls): DatabaseTls {
  const { ca, tls } = stored;
  if (!ca || !tls || stored.user) return compute();
  const inner = known.get(ca) ?? new WeakMap<object, { key: string; tls: DatabaseTls }>();
  const hit = inner.get(tls);
  if (hit?.key === key) return hit.tls;
  const material = compute();
  inner.set(tls, { key, tls: material });
  known.set(ca, inner);
  return material;
}

/** The material for `<db>-ca` and `<db>-tls`: the stored one while sound, renewed parts else. */
export async function ensureTls(
  cluster: Cluster,
  db: Database,
  dnsNames: string[],
  now: Date,
): Promise<DatabaseTls> {
  const stored = await readStored(cluster, db);
  // Per day: a renewal is decided by the date, so a new day looks again.
  const key = `${dnsNames.join(" ")}|${now.toISOString().slice(0, 10)}`;
  return remembered(stored, key, () => tlsMaterial(db.metadata?.name ?? "", stored, dnsNames, now));
}

/**
 * What the operator connects with: the stored Secrets, which is what the pods mount, not what
 * this pass would issue (a renewal reaches the pods only with the Secret).
 */
export async function operatorTls(
  cluster: Cluster,
  db: Database,
): Promise<OperatorTls | undefined> {
  const namespace = db.metadata?.namespace ?? "";
  const names = childNames(db.metadata?.name ?? "");
  const read = (name: string) => cluster.get({ apiVersion: "v1", kind: "Secret", namespace, name });
  const [ca, tls] = await Promise.all([read(names.caSecret), read(names.tlsSecret)]);
  const serverCa = decoded(tls, TLS_SECRET_KEYS.serverCa);
  const superuser = pairIn(ca, CA_SECRET_KEYS.operatorCert, CA_SECRET_KEYS.operatorKey);
  const monitor = pairIn(ca, CA_SECRET_KEYS.monitorCert, CA_SECRET_KEYS.monitorKey);
  if (!serverCa || !superuser.cert || !superuser.key) return undefined;
  return {
    ca: serverCa,
    superuser: { cert: superuser.cert, key: superuser.key },
    ...(monitor.cert && monitor.key ? { monitor: { cert: monitor.cert, key: monitor.key } } : {}),
  };
}

/** The input with `tlsTransition` set while some instance runs a pod from before TLS. */
export function withTlsTransition(input: BuildInput, pods: KubeObject[]): BuildInput {
  return pods.some(pod => !mountsTls(pod)) ? { ...input, tlsTransition: true } : input;
}
