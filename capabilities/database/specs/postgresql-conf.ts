/**
 * postgresql.conf and pg_hba.conf of every instance (the same files on primary and replicas: a
 * standby ignores the primary-only settings, so a promotion needs no configuration change).
 */
import { DEFAULT_ARCHIVE_TIMEOUT_SECONDS, type ResolvedSpec } from "../api/defaults";
import { instanceName } from "../api/names";
import { parameterNameProblem } from "../api/parameter-names";
import { BuildInput, identity, namesOf } from "./meta";
import { TLS_FILES, TlsFiles } from "./tls";
import {
  CONFIG_DIR,
  FILE_ARCHIVE,
  FILE_PG_HBA,
  FILE_PG_IDENT,
  METRICS_IDENT_MAP,
  INSTANCE_CONF,
  PASSFILE,
  POSTGRES_PORT,
  MONITOR_USER,
  REPLICATION_USER,
  RUN_DIR,
  VOLUME_SOCKET_DIR,
  SUPERUSER,
} from "./layout";

/**
 * Replication capacity. Constant rather than derived from `instances`: both are restart-only
 * parameters and a standby refuses to start when its value is below the primary's, so scaling
 * must not change them. MAX_INSTANCES (9) plus headroom for a base backup and pg_rewind.
 */
export const MAX_WAL_SENDERS = 16;
export const MAX_REPLICATION_SLOTS = 16;

/**
 * Defaults the user may override through spec.postgresql.parameters. wal_keep_size keeps some WAL
 * for replicas that fell behind until the operator manages replication slots.
 */
const OVERRIDABLE_DEFAULTS: Readonly<Record<string, string>> = {
  // Streaming and archiving need replica; logical (logical replication, a migration by
  // publication and subscription) is the user's choice, and admission refuses minimal.
  wal_level: "replica",
  wal_keep_size: "512MB",
  // A standby whose primary vanished from the network (no FIN, no RST) gives up on it after this
  // long instead of PostgreSQL's minute, and a primary stops counting on a lost standby as
  // soon; the other side of each connection asks for a reply at half the timeout, so only a
  // real stall this long ends a connection.
  wal_receiver_timeout: "10s",
  wal_sender_timeout: "10s",
};

/**
 * `ANY n ("<db>-0", "<db>-1", …)` in quorum mode, empty (asynchronous) otherwise. The standbys are
 * named: with `*`, any walsender could acknowledge a commit, a backup's pg_basebackup stream
 * included, which would then hold the only copy of an acknowledged commit during a failover.
 * Every instance below spec.instances is listed (the primary's own name is harmless: it never
 * connects to itself), so the value is the same on every instance and across failovers; a
 * replica about to be scaled away is not, as failover would no longer consider it.
 */
export function synchronousStandbyNames(input: BuildInput): string {
  const sync = input.spec.postgresql.synchronous;
  if (sync.mode !== "quorum" || !sync.number) return "";
  const db = identity(input.db).name;
  const names = Array.from({ length: input.spec.instances }, (_, n) => `"${instanceName(db, n)}"`);
  return `ANY ${sync.number} (${names.join(", ")})`;
}

/**
 * TLS (ADR 0017): the server's certificate, and the CA client certificates (replication's, the
 * operator's) must chain to. All reloadable: a renewed certificate is served after a reload.
 */
function sslParameters(files: TlsFiles): [string, string][] {
  return [
    ["ssl", "on"],
    ["ssl_cert_file", files.serverCert],
    ["ssl_key_file", files.serverKey],
    ["ssl_ca_file", files.clientCa],
    ["ssl_min_protocol_version", "TLSv1.2"],
  ];
}

/** The parameters pgkeeper owns, in file order. Values unquoted; `renderConf` quotes them. */
function operatorParameters(dbName: string, archiving: boolean): [string, string][] {
  return [
    ["listen_addresses", "*"],
    ["port", String(POSTGRES_PORT)],
    // The volume's first (layout.ts says why); a directory that is missing costs a warning only.
    ["unix_socket_directories", `${VOLUME_SOCKET_DIR},${RUN_DIR}`],
    ["hba_file", `${CONFIG_DIR}/${FILE_PG_HBA}`],
    ["ident_file", `${CONFIG_DIR}/${FILE_PG_IDENT}`],
    ["cluster_name", dbName],
    ["hot_standby", "on"],
    // pg_rewind needs hint bits WAL-logged (or data checksums) to rejoin a failed primary.
    ["wal_log_hints", "on"],
    ["max_wal_senders", String(MAX_WAL_SENDERS)],
    ["max_replication_slots", String(MAX_REPLICATION_SLOTS)],
    // Only a primary archives (`on`, not `always`); a promoted standby takes over on its timeline.
    ["archive_mode", archiving ? "on" : "off"],
    ["synchronous_commit", "on"],
    // Standbys retry a lost primary connection this often: after a failover they find the new
    // primary (and, in quorum mode, unblock its commits) within a second instead of five.
    ["wal_retrieve_retry_interval", "1s"],
    // A client that gives up mid-handshake (probes with short timeouts, under load) must not
    // leave a backend authenticating for the default minute.
    ["authentication_timeout", "10s"],
    ...sslParameters(TLS_FILES),
  ];
}

/**
 * User parameters merged over the overridable defaults, sorted by name. Names admission refuses
 * (api/parameter-names) are left out: reconcile refuses such a spec too, and even then they must
 * never break replication or inject lines into the file.
 */
export function userParameters(spec: ResolvedSpec): [string, string][] {
  const merged = { ...OVERRIDABLE_DEFAULTS, ...spec.postgresql.parameters };
  return Object.entries(merged)
    .filter(([name]) => parameterNameProblem(name) === undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * A value as a postgresql.conf string literal. Every value is quoted (PostgreSQL accepts quoted
 * numbers and booleans too); backslash, quote and line breaks are escaped so a value can never
 * end the line and start a new setting.
 */
export function quoteValue(value: string): string {
  const escaped = value
    .replace(/\\/g, "\\\\")
    .replace(/'/g, "''")
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r");
  return `'${escaped}'`;
}

const lines = (params: [string, string][]): string[] =>
  params.map(([name, value]) => `${name} = ${quoteValue(value)}`);

/**
 * The parameters the operator keeps in postgresql.auto.conf of every instance with ALTER SYSTEM
 * (then a reload), so changing one never needs a new file on the pods: the user's parameters and
 * synchronous_standby_names (the quorum follows spec.postgresql.synchronous without a restart).
 */
export function managedParameters(input: BuildInput): [string, string][] {
  return [
    ...userParameters(input.spec),
    ["synchronous_standby_names", synchronousStandbyNames(input)],
    ...archiveParameters(input),
  ];
}

/**
 * archive_command and archive_timeout, live like the user's parameters (a reload applies them);
 * archive_mode, restart-only, is in postgresql.conf. None without an object store (the operator
 * rewrites postgresql.auto.conf whole, so turning archiving off removes them).
 */
function archiveParameters(input: BuildInput): [string, string][] {
  const backup = input.spec.backup;
  if (!backup?.objectStore) return [];
  return [
    ["archive_command", `/bin/sh ${CONFIG_DIR}/${FILE_ARCHIVE} "%p"`],
    ["archive_timeout", `${backup.archiveTimeoutSeconds ?? DEFAULT_ARCHIVE_TIMEOUT_SECONDS}s`],
  ];
}

/**
 * primary_conninfo of a standby (libpq keywords; the values need no quoting). Written in two
 * places: by entrypoint.sh at each start, and by the operator with ALTER SYSTEM (below). Always
 * through `<db>-rw`: a Service follows the primary's pod wherever it is recreated, and with no
 * primary behind it a connection is refused at once, where a pod's own address can be stale
 * and a WAL receiver's connect has no timeout (libpq's connect_timeout does not apply to it).
 */
export function replicationConninfo(c: {
  host: string;
  port: string;
  applicationName: string;
  following?: string;
  /**
   * The TLS files (ADR 0017): streaming_replica by certificate, the server verified. Without
   * them, as an instance started before TLS does: the superuser by password from the passfile.
   */
  tls?: TlsFiles;
}): string {
  const auth = c.tls
    ? [
        `user=${REPLICATION_USER}`,
        "sslmode=verify-full",
        `sslrootcert=${c.tls.serverCa}`,
        `sslcert=${c.tls.replicationCert}`,
        `sslkey=${c.tls.replicationKey}`,
      ]
    : [`user=${SUPERUSER}`, `passfile=${PASSFILE}`];
  return [
    `host=${c.host}`,
    `port=${c.port}`,
    ...auth,
    `application_name=${c.applicationName}`,
    ...(c.following ? [`fallback_application_name=${c.following}`] : []),
    "connect_timeout=5",
  ].join(" ");
}

/**
 * What the operator keeps in one instance's postgresql.auto.conf: the managed parameters and
 * primary_conninfo naming the current primary. The name rides in fallback_application_name,
 * which libpq ignores when application_name is set (it always is); it is there so the value
 * changes with the primary: PostgreSQL restarts the WAL receiver when primary_conninfo changes on
 * a reload, so every standby leaves a lost primary at once, even one cut off the network whose
 * connection would otherwise hang until wal_receiver_timeout while the new primary's
 * synchronous commits wait. (On the primary itself the value is ignored.)
 */
export function instanceParameters(
  input: BuildInput,
  instance: string,
  primary: string,
  /** The instance has the certificates mounted (false: a pod from before TLS). */
  tls = true,
): Record<string, string> {
  const conninfo = replicationConninfo({
    host: namesOf(input).rwService,
    port: String(POSTGRES_PORT),
    applicationName: instance,
    following: primary,
    ...(tls ? { tls: TLS_FILES } : {}),
  });
  return { ...Object.fromEntries(managedParameters(input)), primary_conninfo: conninfo };
}

/**
 * The fixed postgresql.conf. Deterministic, and independent of spec.postgresql: it feeds the
 * config hash, which must not change (and mark every pod for a restart) on a reloadable change.
 */
export function renderPostgresqlConf(dbName: string, archiving = false): string {
  return [
    "# Managed by pgkeeper; edits are overwritten. Set parameters in spec.postgresql.parameters:",
    "# pgkeeper writes them into postgresql.auto.conf (ALTER SYSTEM) and reloads.",
    "",
    "# Owned by pgkeeper (replication, failover, probes and backups depend on them).",
    ...lines(operatorParameters(dbName, archiving)),
    "",
    "# Per instance, written by entrypoint.sh at each start (primary_conninfo with the pod name).",
    `include_if_exists = ${quoteValue(INSTANCE_CONF)}`,
    "",
  ].join("\n");
}

/**
 * postgresql.auto.conf for a brand-new database cluster (entrypoint.sh copies it in after
 * initdb), so even restart-only parameters hold from the first start. Afterwards the operator
 * keeps the file current with ALTER SYSTEM, and clones copy it from the primary.
 */
export function renderManagedConf(input: BuildInput): string {
  return [
    "# Written by pgkeeper at bootstrap; kept current with ALTER SYSTEM.",
    ...lines(managedParameters(input)),
    "",
  ].join("\n");
}

/** What pg_hba.conf lets in over the network (ADR 0017). */
export interface HbaOptions {
  allowPlaintext: boolean;
  enableSuperuserAccess: boolean;
  /**
   * An instance still runs a pod from before TLS (no certificates mounted): it streams, and the
   * operator reaches it, as the superuser by password, TLS or not, until every pod is replaced.
   */
  transition: boolean;
}

/**
 * pg_hba.conf. The local socket: the superuser without a password (probes, the entrypoint, the
 * operator's exec sessions). The network: TLS only (`hostssl`), unless plaintext is allowed;
 * standbys as streaming_replica and the operator as pgkeeper_monitor, each by certificate; the
 * superuser by pgkeeper's certificate and its
 * password (only the operator has both) unless superuser access is enabled; everyone else by
 * SCRAM. First match wins, so the order matters.
 */
/** The roles pgkeeper reserves, refused on plaintext lines; the superuser unless enabled. */
const reservedRoles = (superuserAccess: boolean): string[] => [
  ...(superuserAccess ? [] : [SUPERUSER]),
  REPLICATION_USER,
  MONITOR_USER,
];

export function renderPgHba(o: HbaOptions): string {
  const superuser = o.enableSuperuserAccess
    ? "scram-sha-256"
    : "scram-sha-256 clientcert=verify-full";
  const transition = o.transition
    ? [
        "# Until every instance runs with certificates (pods from before TLS):",
        `host    replication  ${SUPERUSER}           all      scram-sha-256`,
        `host    all          ${SUPERUSER}           all      scram-sha-256`,
      ]
    : [];
  return [
    "# Managed by pgkeeper; edits are overwritten.",
    "# TYPE  DATABASE     USER                ADDRESS  METHOD",
    `local   all          ${SUPERUSER}                     trust`,
    `local   replication  ${SUPERUSER}                     trust`,
    // The metrics sidecar (ADR 0043): the pod's OS user, as the monitor only.
    `local   postgres     ${MONITOR_USER}    peer map=${METRICS_IDENT_MAP}`,
    "local   all          all                         scram-sha-256",
    ...transition,
    `hostssl replication  ${REPLICATION_USER}   all      cert`,
    // pg_rewind reads the source's files over an ordinary connection.
    `hostssl postgres     ${REPLICATION_USER}   all      cert`,
    // The operator's everyday identity (ADR 0019): its certificate, no password.
    `hostssl postgres     ${MONITOR_USER}    all      cert`,
    `hostssl all          ${SUPERUSER}           all      ${superuser}`,
    `hostssl all          all                 all      scram-sha-256`,
    ...(o.allowPlaintext
      ? [
          // pgkeeper's own roles never over plaintext (ADR 0017), the superuser only when its
          // access is enabled: allowPlaintext is for applications.
          ...reservedRoles(o.enableSuperuserAccess).map(
            role => `host    all          ${role.padEnd(19)} all      reject`,
          ),
          "host    all          all                 all      scram-sha-256",
        ]
      : ["host    all          all                 all      reject"]),
    "",
  ].join("\n");
}
