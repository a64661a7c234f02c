/**
 * Where things live inside an instance pod: ports, mount points, file names, the user id, the
 * roles and pgkeeper's SQL objects. The StatefulSet, the ConfigMap (postgresql.conf), the
 * operator's SQL and the instance scripts all read these (the scripts and SQL files through
 * hack/generate-scripts.ts, which writes them in), so a path or a name is spelled once.
 */

export const POSTGRES_PORT = 5432;
export const POSTGRES_PORT_NAME = "postgres";

/** The superuser: the local socket, the operator (with its certificate), break-glass access. */
export const SUPERUSER = "postgres";
/**
 * The role standbys stream, clone and rewind as (REPLICATION, certificate authentication), and
 * the common name of its client certificate.
 */
export const REPLICATION_USER = "streaming_replica";
/**
 * The role the operator probes, promotes and reloads as (pg_monitor and a few grants), by
 * certificate only, and the common name of its client certificate. The superuser is left for
 * what PostgreSQL cannot delegate (ALTER SYSTEM, password changes, role creation).
 */
export const MONITOR_USER = "pgkeeper_monitor";
/** The application role and database created at bootstrap. */
export const APP_USER = "app";
export const APP_DATABASE = "app";

/**
 * uid/gid of `postgres` in the official image (and in the Debian-built image, which must create
 * its postgres user with this id; the entrypoint falls back to nss_wrapper when it is unknown).
 */
export const POSTGRES_UID = 999;

/** The ConfigMap is mounted here (read only). */
export const CONFIG_DIR = "/config";
/** Data volume mount; PGDATA is a subdirectory so `lost+found` on ext4 volumes does not bother initdb. */
export const DATA_MOUNT = "/var/lib/postgresql/data";
export const PGDATA = `${DATA_MOUNT}/pgdata`;
/**
 * The server's socket directory on the data volume, beside PGDATA, listed first in
 * unix_socket_directories so that postmaster.pid names it: a major upgrade's check Job, which
 * mounts the primary's claim on its node, reaches the live server there (ADR 0041). Giving it
 * nothing new: whoever may mount the claim may read the data files already.
 */
export const VOLUME_SOCKET_SUBDIR = "socket";
export const VOLUME_SOCKET_DIR = `${DATA_MOUNT}/${VOLUME_SOCKET_SUBDIR}`;
/**
 * Writable per-pod directory (emptyDir) for the Unix socket, the lock file, the replication
 * passfile and the per-instance configuration. /var/run/postgresql does not exist in every image.
 */
export const RUN_DIR = "/controller/run";
/**
 * A major upgrade's scratch space (an emptyDir of the pods that check or run it, ADR 0041): the
 * old major's programs, exported there by its own image, and the checks' throwaway cluster.
 */
export const UPGRADE_DIR = "/upgrade";
/** The major upgrade's steps (scripts/upgrade.sh), in the ConfigMap. */
export const FILE_UPGRADE = "upgrade.sh";

/** ConfigMap keys (file names under CONFIG_DIR). */
export const FILE_POSTGRESQL_CONF = "postgresql.conf";
export const FILE_PG_HBA = "pg_hba.conf";
export const FILE_ENTRYPOINT = "entrypoint.sh";
export const FILE_PROBE = "probe.sh";
/** pgBackRest's configuration (specs/pgbackrest.ts), with the instance scripts. */
export const FILE_PGBACKREST_CONF = "pgbackrest.conf";
/** The object store's CA bundle (spec.backup.objectStore.ca), mounted from the user's Secret. */
export const PGBACKREST_CA_DIR = "/pgbackrest-ca";
export const PGBACKREST_CA_FILE = `${PGBACKREST_CA_DIR}/ca.crt`;
export const PGBACKREST_CA_VOLUME = "pgbackrest-ca";
/** Its name contains "pgbackrest": `pgbackrest check` and `backup` refuse an archive_command without it. */
export const FILE_ARCHIVE = "pgbackrest-archive.sh";
/** Runs `pgbackrest server` in the sidecar, reloading it (SIGHUP) when its certificates change. */
export const FILE_PGBACKREST_SERVER = "pgbackrest-server.sh";
/** The Secret `<db>-backup-tls`, mounted in the sidecar (and the backup Jobs). */
export const BACKUP_TLS_DIR = "/pgbackrest-tls";
export const BACKUP_TLS_VOLUME = "pgbackrest-tls";
/** The sidecar serving pgBackRest's TLS protocol for backups taken by a Job. */
export const PGBACKREST_CONTAINER = "pgbackrest";
/**
 * The metrics sidecar (ADR 0043): the image's prometheus-postgres-exporter on port 9187 (TLS),
 * logged in as MONITOR_USER over the local socket, by `peer` through the pg_ident.conf map.
 */
export const METRICS_CONTAINER = "metrics";
export const METRICS_PORT = 9187;
export const METRICS_PORT_NAME = "metrics";
export const EXPORTER_BIN = "/usr/bin/prometheus-postgres-exporter";
/** Runs the exporter and starts it again if it ends; never fails the pod (scripts/metrics.sh). */
export const FILE_METRICS = "metrics.sh";
/** The queries, pgkeeper's then the user's (exporter-queries.ts); a change restarts the exporter alone. */
export const FILE_EXPORTER_QUERIES = "exporter-queries.yaml";
/** The exporter's web configuration: TLS with the instance's server certificate. */
export const FILE_EXPORTER_WEB = "exporter-web.yaml";
export const FILE_PG_IDENT = "pg_ident.conf";
/** The pg_ident.conf map that lets the pod's OS user in as MONITOR_USER, and only that. */
export const METRICS_IDENT_MAP = "pgkeeper-metrics";
/** The exporter's application_name, as pg_stat_activity shows it. */
export const METRICS_APPLICATION_NAME = "pgkeeper-metrics";

/**
 * bootstrap.recovery (specs/recovery.ts): pgBackRest's configuration for the source repository,
 * the restore options (one per line), and restore_command's wrapper. Present only in a Database
 * created from a backup.
 */
export const FILE_RECOVERY_CONF = "pgbackrest-source.conf";
export const FILE_RECOVERY_OPTIONS = "recovery-options";
export const FILE_RESTORE_WAL = "pgbackrest-restore-wal.sh";
/** The source store's CA bundle (bootstrap.recovery.source.objectStore.ca). */
export const SOURCE_CA_DIR = "/pgbackrest-source-ca";
export const SOURCE_CA_FILE = `${SOURCE_CA_DIR}/ca.crt`;
export const SOURCE_CA_VOLUME = "pgbackrest-source-ca";
/** postgresql.auto.conf of a new database cluster (the managed parameters at bootstrap). */
export const FILE_MANAGED_CONF = "managed.conf";
/**
 * The SQL the entrypoint runs on a new database cluster (scripts/bootstrap.sql, in single-user
 * mode) and, in a Database created from a backup, on the restored one (scripts/recovery.sql).
 */
export const FILE_BOOTSTRAP_SQL = "bootstrap.sql";
export const FILE_RECOVERY_SQL = "recovery.sql";

/** The topology ConfigMap is mounted here; FILE_PRIMARY names the instance that must be primary. */
export const TOPOLOGY_DIR = "/topology";
export const FILE_PRIMARY = "primary";
/** Present (holding status.initializedAt) once the Database held data: never initdb again. */
export const FILE_INITIALIZED = "initialized";

/**
 * Left in PGDATA by the operator (over SQL: COPY ... TO)
 * for a replica that runs but cannot follow its primary: at its next start the entrypoint rewinds
 * it onto the primary's timeline, or clones it again.
 */
export const FILE_REPAIR_MARKER = "pgkeeper.repair";

/**
 * pgkeeper's objects in every database cluster, which scripts/roles.sql creates (specs/roles.ts
 * has the why). The comment on the schema `pgkeeper` says which version of that setup ran to the
 * end: the probe compares it, and the operator runs the setup again on a cluster with an older
 * one.
 */
export const ROLES_VERSION = "pgkeeper roles 2";
/** What a standby calls on its primary before pg_rewind (in the `postgres` database). */
export const CHECKPOINT_FUNCTION = "pgkeeper.checkpoint()";
/** Whether pg_hba.conf or a TLS file changed on disk since the configuration was last loaded. */
export const FILES_CHANGED_FUNCTION = "pgkeeper.config_files_changed()";
/** Leaves the repair marker in a replica's data directory (ha/stuck-replica.ts). */
export const REPAIR_FUNCTION = "pgkeeper.request_repair()";

/** Written by the entrypoint at every start (primary_conninfo with this pod's name). */
export const INSTANCE_CONF = `${RUN_DIR}/instance.conf`;
/** Replication password file written by the entrypoint (mode 0600, never in PGDATA). */
export const PASSFILE = `${RUN_DIR}/pgpass`;

/** Container names. */
export const POSTGRES_CONTAINER = "postgres";

/**
 * The Secret `<db>-tls` (specs/tls.ts), mounted in every instance: the Database's CA certificate
 * (it verifies client certificates), pgkeeper's server certificate and replication's client one.
 */
export const TLS_DIR = "/tls";
export const TLS_VOLUME = "tls";

/** Volume names (the data volume's is its claim template's, in api/names). */
export { DATA_VOLUME } from "../api/names";
export const CONFIG_VOLUME = "config";
export const RUN_VOLUME = "run";
export const TMP_VOLUME = "tmp";
export const TOPOLOGY_VOLUME = "topology";

/**
 * Credentials as files of one projected Secret volume, read by the scripts that need them, each
 * for the one process that uses it (initdb and the bootstrap, archive_command and restore_command
 * for pgBackRest, the backup Job). Never environment variables: every process of the container
 * inherits those, each PostgreSQL backend and archive_command included, and keeps them in
 * /proc/<pid>/environ for its whole life. 0440 with the pod's fsGroup: nobody else reads them.
 */
export const CREDENTIALS_DIR = "/credentials";
export const CREDENTIALS_VOLUME = "credentials";
export const CREDENTIAL_FILES = {
  superuserPassword: "superuser-password",
  appPassword: "app-password",
  repo1S3Key: "repo1-s3-key",
  repo1S3KeySecret: "repo1-s3-key-secret",
  sourceS3Key: "source-s3-key",
  sourceS3KeySecret: "source-s3-key-secret",
} as const;

/**
 * Environment variables the scripts read (set by the StatefulSet). The four credentials among
 * them are set no more: a pod of an earlier pgkeeper still has them until it is rolled, and the
 * scripts, which the ConfigMap updates under it, read them when the credential files are absent.
 */
export const ENV = {
  superuserPassword: "PGKEEPER_SUPERUSER_PASSWORD",
  appPassword: "PGKEEPER_APP_PASSWORD",
  podName: "POD_NAME",
  podIP: "POD_IP",
  dbName: "DB_NAME",
  primaryHost: "PRIMARY_HOST",
  headlessService: "HEADLESS_SERVICE",
  pgMajor: "PG_MAJOR",
  /** The source repository's keys (bootstrap.recovery), apart from this Database's own. */
  sourceS3Key: "PGKEEPER_SOURCE_S3_KEY",
  sourceS3KeySecret: "PGKEEPER_SOURCE_S3_KEY_SECRET",
} as const;
