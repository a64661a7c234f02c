/**
 * A PostgreSQL client on the host (psql), connecting the way an application would: through the
 * `-rw` Service's ClusterIP with the credentials of the app Secret, over TLS, verifying the
 * server's certificate against the Secret's ca.crt and the Service's name (ADR 0017).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { get } from "../integration/harness/kubectl";

/** TLS of a connection: the name the certificate must carry, the CA, a client certificate. */
export interface ClientTls {
  servername: string;
  ca: string;
  cert?: string;
  key?: string;
}

export interface Credentials {
  /** Where to connect: an IP (the host has no cluster DNS); `tls.servername` is checked. */
  host: string;
  port: string;
  user: string;
  password: string;
  dbname: string;
  tls?: ClientTls;
}

const decode = (b64: string | undefined): string =>
  Buffer.from(b64 ?? "", "base64").toString("utf8");

/** The app credentials, with the host replaced by the Service's ClusterIP (the host has no cluster DNS). */
export function appCredentials(namespace: string, db: string): Credentials {
  const secret = get("secret", namespace, `${db}-app`);
  const svc = get("service", namespace, `${db}-rw`);
  if (!secret?.data || !svc) throw new Error(`no app Secret or -rw Service for ${namespace}/${db}`);
  return {
    host: String((svc.spec as { clusterIP: string }).clusterIP),
    port: decode(secret.data.port),
    user: decode(secret.data.username),
    password: decode(secret.data.password),
    dbname: decode(secret.data.dbname),
    // The Secret's own host: the name the server certificate carries.
    tls: { servername: decode(secret.data.host), ca: decode(secret.data["ca.crt"]) },
  };
}

const pemDir = mkdtempSync(join(tmpdir(), "pgkeeper-e2e-tls-"));

/** A PEM in a file of its own (libpq reads files; a key must be 0600), by its content. */
function pemFile(pem: string): string {
  const file = join(pemDir, createHash("sha256").update(pem).digest("hex").slice(0, 16));
  writeFileSync(file, pem, { mode: 0o600 });
  return file;
}

/** libpq's connection string: host names the certificate, hostaddr is where to connect. */
export function conninfo(c: Credentials, sslmode = "verify-full"): string {
  const quote = (v: string) => `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const parts: [string, string][] = [
    ["port", c.port],
    ["user", c.user],
    ["dbname", c.dbname],
    ["connect_timeout", "5"],
  ];
  if (c.tls && sslmode !== "disable") {
    parts.push(
      ["host", c.tls.servername],
      ["hostaddr", c.host],
      ["sslmode", sslmode],
      ["sslrootcert", pemFile(c.tls.ca)],
    );
    if (c.tls.cert && c.tls.key)
      parts.push(["sslcert", pemFile(c.tls.cert)], ["sslkey", pemFile(c.tls.key)]);
  } else parts.push(["host", c.host], ["sslmode", sslmode]);
  return parts.map(([k, v]) => `${k}=${quote(v)}`).join(" ");
}

/** What a pg client (node-postgres) is given for `c`: the same verification as psql's. */
export function pgConfig(c: Credentials) {
  return {
    host: c.host,
    port: Number(c.port),
    user: c.user,
    password: c.password,
    database: c.dbname,
    ...(c.tls
      ? {
          ssl: {
            ca: c.tls.ca,
            servername: c.tls.servername,
            ...(c.tls.cert && c.tls.key ? { cert: c.tls.cert, key: c.tls.key } : {}),
          },
        }
      : {}),
  };
}

/** Query output kept: small on purpose. Anything that grows with the data is aggregated in SQL. */
const MAX_OUTPUT = 1024 * 1024;

/** Runs SQL; returns trimmed stdout, throws with psql's stderr on failure. */
export function psql(c: Credentials, sql: string, timeoutMs = 15_000, sslmode?: string): string {
  const run = spawnSync(
    "psql",
    ["-d", conninfo(c, sslmode), "-v", "ON_ERROR_STOP=1", "-At", "-c", sql],
    {
      encoding: "utf8",
      timeout: timeoutMs,
      maxBuffer: MAX_OUTPUT,
      env: { ...process.env, PGPASSWORD: c.password, PGCONNECT_TIMEOUT: "5" },
    },
  );
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOBUFS")
    throw new Error(`psql printed over ${MAX_OUTPUT} bytes for "${sql}": aggregate in SQL instead`);
  if (run.status !== 0)
    throw new Error(`psql failed (${run.status}): ${run.stderr || run.error?.message}`);
  return run.stdout.trim();
}

/**
 * Superuser credentials for one instance pod, by its IP (the host routes to the pod network), as
 * the operator has them: the password and pgkeeper's client certificate (`<db>-ca`), the server
 * verified by its pod name.
 */
export function superuserAt(
  namespace: string,
  db: string,
  pod: { metadata?: { name?: string }; status?: Record<string, unknown> },
): Credentials {
  const secret = get("secret", namespace, `${db}-superuser`);
  const ca = get("secret", namespace, `${db}-ca`);
  const ip = (pod.status as { podIP?: string } | undefined)?.podIP;
  if (!secret?.data || !ca?.data || !ip)
    throw new Error(`no superuser or CA Secret, or no pod IP, for ${namespace}/${db}`);
  return {
    host: ip,
    port: "5432",
    user: "postgres",
    password: decode(secret.data.password),
    dbname: "postgres",
    tls: {
      servername: `${pod.metadata?.name ?? ""}.${db}-hl.${namespace}.svc`,
      ca: decode(secret.data["ca.crt"]),
      cert: decode(ca.data["operator.crt"]),
      key: decode(ca.data["operator.key"]),
    },
  };
}
