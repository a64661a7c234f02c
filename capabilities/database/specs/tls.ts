/**
 * TLS of a Database's PostgreSQL connections (ADR 0017): its own CA, the server certificate every
 * instance serves (one set of names covers every Service and, by wildcard, every pod, so scaling
 * needs no new certificate), and three client certificates: `streaming_replica`'s, which standbys
 * stream, clone and rewind with, and the operator's two: `pgkeeper_monitor`'s, its everyday
 * identity, and the superuser's (`postgres`), for what only a superuser may do (ADR 0019).
 *
 * Two Secrets, so what the pods mount never holds the CA's key or the operator's identities:
 * - `<db>-ca`: ca.crt, ca.key, operator.crt, operator.key, monitor.crt, monitor.key (read by the
 *   operator only);
 * - `<db>-tls`: ca.crt, server-ca.crt, tls.crt, tls.key, replication.crt, replication.key
 *   (mounted at /tls). With spec.tls.serverSecretName, the user's certificate, key and ca.crt are
 *   copied in as tls.crt, tls.key and server-ca.crt, so every path is the same either way.
 *
 * The key material comes in as an argument (pki/database-tls.ts issues it once, renews the leaves
 * before they end and otherwise passes back what the Secrets hold), so these builders are pure.
 */
import type { V1Secret } from "@kubernetes/client-node";
import { TLS_DIR } from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";

/** PEM text of a Database's TLS material. */
export interface DatabaseTls {
  caCert: string;
  caKey: string;
  /** What clients verify the server with: caCert, or the ca.crt of the user's server Secret. */
  serverCa: string;
  /** What PostgreSQL serves: pgkeeper's leaf, or the user's certificate. */
  serverCert: string;
  serverKey: string;
  replicationCert: string;
  replicationKey: string;
  /** The operator as the superuser. */
  operatorCert: string;
  operatorKey: string;
  /** The operator as pgkeeper_monitor. */
  monitorCert: string;
  monitorKey: string;
}

/** Each Secret's keys, by the part of the material they hold. */
export const CA_SECRET_KEYS = {
  caCert: "ca.crt",
  caKey: "ca.key",
  operatorCert: "operator.crt",
  operatorKey: "operator.key",
  monitorCert: "monitor.crt",
  monitorKey: "monitor.key",
} as const satisfies Partial<Record<keyof DatabaseTls, string>>;

export const TLS_SECRET_KEYS = {
  caCert: "ca.crt",
  serverCa: "server-ca.crt",
  serverCert: "tls.crt",
  serverKey: "tls.key",
  replicationCert: "replication.crt",
  replicationKey: "replication.key",
} as const satisfies Partial<Record<keyof DatabaseTls, string>>;

/** A user's server certificate Secret (cert-manager's layout), copied into `<db>-tls`. */
export const USER_SERVER_KEYS = { cert: "tls.crt", key: "tls.key", ca: "ca.crt" } as const;

/** The cluster's DNS domain, which fully qualified Service names end in. */
export const CLUSTER_DOMAIN = "cluster.local";

/**
 * Every name a client may reach an instance by: `<db>-rw`, `<db>-ro`, `<db>-hl` and any pod
 * behind `<db>-hl`, each short, in the namespace, `.svc` and fully qualified.
 */
export function postgresDnsNames(input: BuildInput): string[] {
  const { namespace } = identity(input.db);
  const names = namesOf(input);
  const forms = (host: string) => [
    host,
    `${host}.${namespace}`,
    `${host}.${namespace}.svc`,
    `${host}.${namespace}.svc.${CLUSTER_DOMAIN}`,
  ];
  return [
    ...[names.rwService, names.roService, names.headlessService].flatMap(forms),
    ...forms(`*.${names.headlessService}`),
  ];
}

/** The DNS name the operator verifies an instance's certificate against (it dials the pod IP). */
export const instanceServerName = (input: BuildInput, pod: string): string =>
  `${pod}.${namesOf(input).headlessService}.${identity(input.db).namespace}.svc`;

/** Where, inside an instance, PostgreSQL and libpq find each file (all in `<db>-tls`). */
export interface TlsFiles {
  serverCert: string;
  serverKey: string;
  /** What clients (replication included) verify the server with. */
  serverCa: string;
  /** What the server verifies client certificates with: the Database's CA. */
  clientCa: string;
  replicationCert: string;
  replicationKey: string;
}

/** The files under `dir` (the instance scripts pass "$TLS_DIR", which tests can move). */
export function tlsFilesIn(dir: string): TlsFiles {
  const mounted = (key: string): string => `${dir}/${key}`;
  return {
    serverCert: mounted(TLS_SECRET_KEYS.serverCert),
    serverKey: mounted(TLS_SECRET_KEYS.serverKey),
    serverCa: mounted(TLS_SECRET_KEYS.serverCa),
    clientCa: mounted(TLS_SECRET_KEYS.caCert),
    replicationCert: mounted(TLS_SECRET_KEYS.replicationCert),
    replicationKey: mounted(TLS_SECRET_KEYS.replicationKey),
  };
}

export const TLS_FILES: TlsFiles = tlsFilesIn(TLS_DIR);

const encoded = (tls: DatabaseTls, keys: Partial<Record<keyof DatabaseTls, string>>) =>
  Object.fromEntries(
    (Object.entries(keys) as [keyof DatabaseTls, string][]).map(([part, key]) => [
      key,
      Buffer.from(tls[part], "utf8").toString("base64"),
    ]),
  );

function secret(input: BuildInput, name: string, data: Record<string, string>): Child<V1Secret> {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: childMeta(input, name),
    type: "Opaque",
    data,
  };
}

export const buildCaSecret = (input: BuildInput, tls: DatabaseTls): Child<V1Secret> =>
  secret(input, namesOf(input).caSecret, encoded(tls, CA_SECRET_KEYS));

export const buildTlsSecret = (input: BuildInput, tls: DatabaseTls): Child<V1Secret> =>
  secret(input, namesOf(input).tlsSecret, encoded(tls, TLS_SECRET_KEYS));
