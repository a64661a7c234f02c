/**
 * A PostgreSQL client on the host (psql), connecting the way an application would: through the
 * `-rw` Service's ClusterIP with the credentials of the app Secret.
 */
import { spawnSync } from "node:child_process";
import { get } from "../integration/harness/kubectl";

export interface Credentials {
  host: string;
  port: string;
  user: string;
  password: string;
  dbname: string;
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
  };
}

/** Query output kept: small on purpose. Anything that grows with the data is aggregated in SQL. */
const MAX_OUTPUT = 1024 * 1024;

/** Runs SQL; returns trimmed stdout, throws with psql's stderr on failure. */
export function psql(c: Credentials, sql: string, timeoutMs = 15_000): string {
  const run = spawnSync(
    "psql",
    [
      "-h",
      c.host,
      "-p",
      c.port,
      "-U",
      c.user,
      "-d",
      c.dbname,
      "-v",
      "ON_ERROR_STOP=1",
      "-At",
      "-c",
      sql,
    ],
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

/** Superuser credentials for one instance pod, by its IP (the host routes to the pod network). */
export function superuserAt(
  namespace: string,
  db: string,
  pod: { status?: Record<string, unknown> },
): Credentials {
  const secret = get("secret", namespace, `${db}-superuser`);
  const ip = (pod.status as { podIP?: string } | undefined)?.podIP;
  if (!secret?.data || !ip) throw new Error(`no superuser Secret or pod IP for ${namespace}/${db}`);
  return {
    host: ip,
    port: "5432",
    user: "postgres",
    password: decode(secret.data.password),
    dbname: "postgres",
  };
}
