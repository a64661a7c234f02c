/**
 * pgBackRest's configuration for one Database (ADR 0010, 0013): one repository in an
 * S3-compatible object store, one stanza (`db`) for the instance's own data directory. Rendered
 * into the ConfigMap; credentials never are (they come from the user's Secret as PGBACKREST_*
 * environment variables).
 *
 * The repository path ends in the Database's UID: a new Database with the same name never
 * archives into its predecessor's repository, and a restore names the path it reads from.
 */
import { PGDATA, POSTGRES_PORT, RUN_DIR, SUPERUSER } from "./layout";

export const STANZA = "db";

/** Where the store is; all but `path` as pgBackRest's repo1-s3-* options want them. */
export interface ObjectStore {
  /** host or host:port; HTTPS only. */
  endpoint: string;
  bucket: string;
  /** Prefix of every repository in the bucket ("/" for the bucket's root). */
  path: string;
  region: string;
  uriStyle: "path" | "host";
  /** A CA bundle file in the pod, when the store's certificate is not signed by a system CA. */
  caFile?: string;
}

export interface RepositoryOf {
  namespace: string;
  name: string;
  uid: string;
}

/** `<path>/<namespace>/<name>/<uid>`, with one slash between parts. */
export function repositoryPath(store: Pick<ObjectStore, "path">, db: RepositoryOf): string {
  const prefix = store.path.replace(/\/+$/, "");
  return `${prefix}/${db.namespace}/${db.name}/${db.uid}`;
}

/** endpoint "host:port" → pgBackRest's separate host and port options. */
function endpointParts(endpoint: string): { host: string; port?: string } {
  const match = /^(.*):(\d+)$/.exec(endpoint);
  return match ? { host: match[1], port: match[2] } : { host: endpoint };
}

/**
 * pgbackrest.conf for the repository at `repository` (repositoryPath for this Database's own; the
 * source's path for a restore). Archiving is synchronous: pgBackRest's asynchronous mode forks a daemon that
 * outlives archive_command, and in a container where the postmaster is PID 1 the orphan becomes
 * the postmaster's child; when it exits non-zero the postmaster takes it for a crashed backend and
 * restarts every process (seen in the e2e tier: "server process exited with exit code 103 …
 * terminating any other active server processes"). No archive-push-queue-max (it would drop
 * WAL). No log file: the read-only root has no /var/log/pgbackrest, and stderr reaches the pod's
 * log.
 */
export function pgbackrestConf(store: ObjectStore, repository: string): string {
  const { host, port } = endpointParts(store.endpoint);
  const global: [string, string | undefined][] = [
    ["repo1-type", "s3"],
    ["repo1-path", repository],
    ["repo1-s3-endpoint", host],
    ["repo1-storage-port", port],
    ["repo1-s3-bucket", store.bucket],
    ["repo1-s3-region", store.region],
    ["repo1-s3-uri-style", store.uriStyle],
    ["repo1-storage-ca-file", store.caFile],
    // A store that refuses connections fails a push after about 40 s instead of pgBackRest's
    // 4 minutes (4 attempts of io-timeout, default 60 s), so ContinuousArchiving says so soon;
    // PostgreSQL retries anyway. A transfer that stalls this long has failed too.
    ["io-timeout", "10"],
    ["lock-path", "/tmp/pgbackrest"],
    ["log-level-file", "off"],
    ["log-level-console", "warn"],
    ["log-level-stderr", "warn"],
  ];
  const stanza: [string, string][] = [
    ["pg1-path", PGDATA],
    ["pg1-port", String(POSTGRES_PORT)],
    ["pg1-socket-path", RUN_DIR],
    ["pg1-user", SUPERUSER],
  ];
  const section = (name: string, options: [string, string | undefined][]): string =>
    [`[${name}]`, ...options.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`)].join(
      "\n",
    );
  return `${section("global", global)}\n\n${section(STANZA, stanza)}\n`;
}
