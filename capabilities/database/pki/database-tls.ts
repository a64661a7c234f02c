/**
 * The TLS material of a Database's PostgreSQL connections (specs/tls.ts, ADR 0017): what
 * `<db>-ca` and `<db>-tls` hold while it is sound, with each part that is not renewed by the one
 * policy of policy.ts. The same CA signs the backup certificates (backup-tls.ts, ADR 0021).
 *
 * - The CA lives ten years. Only when it is missing, unreadable or near its end is a new one made,
 *   and every leaf with it (clients must then take the new ca.crt from `<db>-app`).
 * - Leaves (server, replication, the operator's two) are renewed by the same CA a month before
 *   they end, or at once when they do not chain to it, do not match their key or (the server's)
 *   do not name every Service: clients keep trusting the same ca.crt throughout.
 * A renewed server certificate reaches the pods through the mounted Secret; ha/ reloads each
 * instance once the certificate it serves is not the Secret's (no restart).
 */
import { ownChildRead } from "../cluster/own-child-read";
import { X509Certificate } from "node:crypto";
import { Database } from "../api/database";
import { childNames } from "../api/names";
import { Cluster, KubeObject } from "../cluster/cluster";
import { ReconcileError } from "../lib/errors";
import { MONITOR_USER, REPLICATION_USER, SUPERUSER } from "../specs/layout";
import { CA_SECRET_KEYS, DatabaseTls, TLS_SECRET_KEYS, USER_SERVER_KEYS } from "../specs/tls";
import { Ca, LeafSpec, ensureCa, ensureLeaf, leafProblem } from "./certificates";
import { decoded, memoized, pairIn } from "./secret-data";

type Leaf = "server" | "replication" | "operator" | "monitor";

/** The leaves, with what each certificate says (a client's common name is its role). */
const LEAVES: Record<Leaf, (db: string, dnsNames: string[]) => LeafSpec> = {
  server: (db, dnsNames) => ({ commonName: `${db}-rw`, dnsNames }),
  replication: () => ({ commonName: REPLICATION_USER }),
  operator: () => ({ commonName: SUPERUSER }),
  monitor: () => ({ commonName: MONITOR_USER }),
};

/** What the Secrets hold: `<db>-ca`, `<db>-tls` and the user's server Secret (any may be missing). */
export interface StoredTls {
  ca?: KubeObject;
  tls?: KubeObject;
  /** spec.tls.serverSecretName's Secret, when the spec names one. */
  user?: { name: string; secret?: KubeObject };
}

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

/** The CA and the material to apply, from what the Secrets hold. */
export interface DatabasePki {
  /** The Database's one CA: it signs every certificate, the backup ones included. */
  ca: Ca;
  tls: DatabaseTls;
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
): DatabasePki {
  const ca = ensureCa(db, pairIn(stored.ca, CA_SECRET_KEYS.caCert, CA_SECRET_KEYS.caKey), now);
  const storedLeaves: Record<Leaf, ReturnType<typeof pairIn>> = {
    server: pairIn(stored.tls, TLS_SECRET_KEYS.serverCert, TLS_SECRET_KEYS.serverKey),
    replication: pairIn(
      stored.tls,
      TLS_SECRET_KEYS.replicationCert,
      TLS_SECRET_KEYS.replicationKey,
    ),
    operator: pairIn(stored.ca, CA_SECRET_KEYS.operatorCert, CA_SECRET_KEYS.operatorKey),
    monitor: pairIn(stored.ca, CA_SECRET_KEYS.monitorCert, CA_SECRET_KEYS.monitorKey),
  };
  const leaf = (name: Leaf) => ensureLeaf(ca, storedLeaves[name], LEAVES[name](db, dnsNames), now);
  const server = stored.user
    ? userServer(stored.user, dnsNames, now)
    : { ...leaf("server"), ca: ca.cert };
  const replication = leaf("replication");
  const operator = leaf("operator");
  const monitor = leaf("monitor");
  const tls: DatabaseTls = {
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
  return { ca, tls };
}

/** What the Secrets of `db` hold now. */
async function readStored(cluster: Cluster, db: Database): Promise<StoredTls> {
  const namespace = db.metadata?.namespace ?? "";
  const names = childNames(db.metadata?.name ?? "");
  const read = (name: string, options?: { missingIsAbsent: boolean }) =>
    cluster.get({ apiVersion: "v1", kind: "Secret", namespace, name }, options);
  const userName = db.spec?.tls?.serverSecretName;
  const [ca, tls, user] = await Promise.all([
    read(names.caSecret, ownChildRead(db)),
    read(names.tlsSecret, ownChildRead(db)),
    userName ? read(userName) : undefined, // the user's: no label of ours, never cached
  ]);
  return { ca, tls, ...(userName ? { user: { name: userName, secret: user } } : {}) };
}

/**
 * The CA and the material for `<db>-ca` and `<db>-tls`: the stored ones while sound, renewed
 * parts else. Remembered per stored Secret objects (secret-data.ts), except with a user's server
 * Secret: it carries no label of ours, so no watch keeps it, and it is read from the API each
 * time (cert-manager's renewals are copied in at the next pass).
 */
export async function ensureTls(
  cluster: Cluster,
  db: Database,
  dnsNames: string[],
  now: Date,
): Promise<DatabasePki> {
  const stored = await readStored(cluster, db);
  const compute = () => tlsMaterial(db.metadata?.name ?? "", stored, dnsNames, now);
  if (!stored.ca || !stored.tls || stored.user) return compute();
  // Per day: a renewal is decided by the date, so a new day looks again.
  const key = `database|${dnsNames.join(" ")}|${now.toISOString().slice(0, 10)}`;
  return memoized([stored.ca, stored.tls], key, compute);
}
