/**
 * The credentials Secrets `<db>-superuser` and `<db>-app`.
 *
 * Passwords come in as arguments: the reconciler generates them once with crypto randomness and
 * afterwards passes back what the existing Secret holds, so data is never regenerated. Each
 * carries the fingerprint of its password, which PostgreSQL has: an edit shows as a mismatch.
 *
 * Values go into `data` (base64), not `stringData`: `stringData` is write-only, the API server
 * folds it into `data` and never returns it, so an object built with it could never be compared
 * with what the server holds and every apply would look like a change (and server-side apply
 * would record ownership of fields that never appear).
 */
import type { V1Secret } from "@kubernetes/client-node";
import { ANNOTATION_PASSWORD_SHA256 } from "../api/names";
import { passwordFingerprint } from "../lib/scram";
import { APP_DATABASE, APP_USER, POSTGRES_PORT, SUPERUSER } from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";

export const SECRET_TYPE = "kubernetes.io/basic-auth";

/** The keys every credentials Secret has. */
export const SECRET_KEYS = [
  "username",
  "password",
  "host",
  "port",
  "dbname",
  "uri",
  "jdbc-uri",
  "pgpass",
  "ca.crt",
] as const;

export type SecretKey = (typeof SECRET_KEYS)[number];

interface Credentials {
  username: string;
  password: string;
  host: string;
  dbname: string;
  /** What clients verify the server with (ADR 0017): the uris ask for sslmode=verify-full. */
  serverCa: string;
}

/** Read-write Service DNS name, as clients in other namespaces reach it. */
const rwHost = (input: BuildInput): string =>
  `${namesOf(input).rwService}.${identity(input.db).namespace}.svc`;

/** A `.pgpass` field: `:` and `\` are escaped with a backslash (libpq's rule). */
const pgpassField = (value: string): string => value.replace(/[\\:]/g, m => `\\${m}`);

/** The decoded contents of a credentials Secret (before base64). Exported for tests and tools. */
export function credentialValues(c: Credentials): Record<SecretKey, string> {
  const port = String(POSTGRES_PORT);
  const user = encodeURIComponent(c.username);
  const password = encodeURIComponent(c.password);
  const dbname = encodeURIComponent(c.dbname);
  return {
    username: c.username,
    password: c.password,
    host: c.host,
    port,
    dbname: c.dbname,
    uri: `postgresql://${user}:${password}@${c.host}:${port}/${dbname}?sslmode=verify-full`,
    "jdbc-uri": `jdbc:postgresql://${c.host}:${port}/${dbname}?user=${user}&password=${password}&sslmode=verify-full`,
    pgpass: [c.host, port, c.dbname, c.username, c.password].map(pgpassField).join(":") + "\n",
    "ca.crt": c.serverCa,
  };
}

const base64 = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, Buffer.from(v, "utf8").toString("base64")]),
  );

function buildSecret(input: BuildInput, name: string, c: Credentials): Child<V1Secret> {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      ...childMeta(input, name),
      annotations: { [ANNOTATION_PASSWORD_SHA256]: passwordFingerprint(c.password) },
    },
    type: SECRET_TYPE,
    data: base64(credentialValues(c)),
  };
}

/**
 * `<db>-superuser`: the `postgres` role, for break-glass use (the local socket; over the network
 * only with spec.enableSuperuserAccess).
 */
export function buildSuperuserSecret(
  input: BuildInput,
  password: string,
  serverCa: string,
): Child<V1Secret> {
  return buildSecret(input, namesOf(input).superuserSecret, {
    username: SUPERUSER,
    password,
    serverCa,
    host: rwHost(input),
    dbname: "postgres",
  });
}

/** `<db>-app`: the application role `app`, owner of database `app`. */
export function buildAppSecret(
  input: BuildInput,
  password: string,
  serverCa: string,
): Child<V1Secret> {
  return buildSecret(input, namesOf(input).appSecret, {
    username: APP_USER,
    password,
    serverCa,
    host: rwHost(input),
    dbname: APP_DATABASE,
  });
}
