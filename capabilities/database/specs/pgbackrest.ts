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

/** What reaching a repository takes: the store without the prefix (the repository path is whole). */
export type StoreAccess = Omit<ObjectStore, "path">;

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
export function pgbackrestConf(store: StoreAccess, repository: string): string {
  return `${section("global", [
    ...repositoryOptions(store, repository),
    ...LOGGING,
  ])}\n\n${section(STANZA, LOCAL_INSTANCE)}\n`;
}

type Options = [string, string | undefined][];

const section = (name: string, options: Options): string =>
  [`[${name}]`, ...options.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`)].join(
    "\n",
  );

function repositoryOptions(store: StoreAccess, repository: string): Options {
  const { host, port } = endpointParts(store.endpoint);
  return [
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
  ];
}

const LOGGING: Options = [
  ["log-level-file", "off"],
  ["log-level-console", "warn"],
  ["log-level-stderr", "warn"],
];

/** The instance's own data directory and server, as pgBackRest on the instance reaches them. */
const LOCAL_INSTANCE: Options = [
  ["pg1-path", PGDATA],
  ["pg1-port", String(POSTGRES_PORT)],
  ["pg1-socket-path", RUN_DIR],
  ["pg1-user", SUPERUSER],
];

/** pgBackRest's TLS server port on every instance (its default). */
export const PGBACKREST_TLS_PORT = 8432;
/** The common name of the backup host's client certificate, the only client the servers accept. */
export const BACKUP_CLIENT_CN = "pgkeeper-backup";

/** PEM files: the CA both sides trust, and this side's certificate and key. */
export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

/**
 * `[global:server]` of an instance's configuration: `pgbackrest server` listening on every
 * address of the pod, answering only clients whose certificate the Database's CA signed with the
 * backup host's common name, and only for this stanza.
 */
export function tlsServerSection(tls: TlsFiles): string {
  return `${section("global:server", [
    ["tls-server-address", "*"],
    ["tls-server-port", String(PGBACKREST_TLS_PORT)],
    ["tls-server-ca-file", tls.ca],
    ["tls-server-cert-file", tls.cert],
    ["tls-server-key-file", tls.key],
    ["tls-server-auth", `${BACKUP_CLIENT_CN}=${STANZA}`],
  ])}\n`;
}

export interface BackupHost {
  /** DNS names of the instances to back up, the primary first; a standby second to copy from it. */
  hosts: string[];
  /** Copy the data files from the standby (pgBackRest's backup-standby); needs two hosts. */
  fromStandby: boolean;
  /** Full backups kept (pgBackRest expires older ones, and their WAL, after each backup). */
  retentionFull?: number;
  tls: TlsFiles;
}

/**
 * The backup host's configuration (a Job): this Database's repository, every instance through
 * its TLS server. pgBackRest finds which host is the primary itself, so a failover between the
 * Job's creation and its start cannot make it copy from the wrong one; a failover during the
 * backup fails it.
 */
export function backupHostConf(store: StoreAccess, repository: string, job: BackupHost): string {
  const global: Options = [
    ...repositoryOptions(store, repository),
    [
      "repo1-retention-full",
      job.retentionFull === undefined ? undefined : String(job.retentionFull),
    ],
    ["start-fast", "y"],
    ["backup-standby", job.fromStandby && job.hosts.length > 1 ? "y" : undefined],
    ["log-level-file", "off"],
    ["log-level-console", "info"],
    ["log-level-stderr", "off"],
  ];
  const instances: Options = job.hosts.flatMap((host, i): Options => {
    const n = i + 1;
    return [
      [`pg${n}-host`, host],
      [`pg${n}-host-type`, "tls"],
      [`pg${n}-host-port`, String(PGBACKREST_TLS_PORT)],
      [`pg${n}-host-ca-file`, job.tls.ca],
      [`pg${n}-host-cert-file`, job.tls.cert],
      [`pg${n}-host-key-file`, job.tls.key],
      [`pg${n}-path`, PGDATA],
      [`pg${n}-port`, String(POSTGRES_PORT)],
      [`pg${n}-socket-path`, RUN_DIR],
      [`pg${n}-user`, SUPERUSER],
    ];
  });
  return `${section("global", global)}\n\n${section(STANZA, instances)}\n`;
}
