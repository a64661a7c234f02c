/**
 * What the operator learns from one instance over SQL (instance-sql.ts fills it). Kept apart
 * from the `pg` client so pure decision code and its tests do not load a driver.
 */
export interface StandbyInfo {
  /** application_name: the pod name. */
  name: string;
  state: string;
  /** `sync`, `quorum`, `potential` or `async`. */
  syncState: string;
  flushLsn?: string;
  replayLsn?: string;
}

/** A primary's pg_stat_archiver, plus the segments waiting in pg_wal to be archived. */
export interface ArchiverState {
  archivedCount: number;
  lastArchivedWal?: string;
  lastArchivedAt?: string;
  failedCount: number;
  lastFailedWal?: string;
  lastFailedAt?: string;
  /** .ready files: segments PostgreSQL keeps until archive_command succeeds. */
  waiting: number;
  /**
   * Whether the instance's image has pgBackRest (the entrypoint's `pgkeeper.image_has_pgbackrest`
   * setting); undefined for a server started before the entrypoint said so.
   */
  imageHasPgBackRest?: boolean;
}

export interface InstanceProbe {
  inRecovery: boolean;
  /** Taken as pgkeeper_monitor (not its superuser fallback): the role works on this cluster. */
  byMonitor?: boolean;
  /** Primary: the timeline it writes. Replica: the one it receives (else its last checkpoint's). */
  timeline: number;
  /**
   * Replica whose WAL receiver is not running: `timeline` is its last restartpoint's, a lower
   * bound of the timeline it replays (which may have moved on minutes ago).
   */
  timelineAtLeast?: boolean;
  /** Primary: pg_current_wal_lsn(); replica: last received (else replayed) LSN. */
  lsn: string;
  replayLsn?: string;
  /** Replica: pg_stat_wal_receiver.status ('streaming' when following a primary). */
  walReceiverStatus?: string;
  postmasterStartTime: string;
  pendingRestart: string[];
  /** The values it runs with of the parameters a standby must match (hot-standby-limits.ts). */
  hotStandbyLimits?: Record<string, number>;
  /** Primary: WAL archiving. */
  archiver?: ArchiverState;
  /** Primary: pg_stat_replication. */
  standbys: StandbyInfo[];
  /** pg_hba.conf or a TLS file changed on disk since the last load: a reload applies it. */
  configFilesChanged?: boolean;
  /**
   * Primary: the operator's roles (specs/roles.ts) are missing or from an earlier version (a
   * database cluster from before them): the operator sets them up as the superuser.
   */
  rolesOutdated?: boolean;
}

export interface InstanceTarget {
  host: string;
  port: number;
  /** "": the identity logs in by certificate only (the monitor). */
  password: string;
  /** Default: the superuser. */
  user?: string;
  database?: string;
  /**
   * TLS (ADR 0017): the CA the server's certificate must chain to, the name it must carry (the
   * host is an IP), and the operator's client certificate. Absent: no TLS (a pod from before it).
   */
  tls?: { ca: string; cert: string; key: string; servername: string };
  /**
   * Whom to log in as instead when the server refuses this identity for want of its role, its
   * pg_hba.conf line or a grant (the monitor's target carries the superuser's: a database
   * cluster from before the monitor role, until the operator has set it up).
   */
  fallback?: InstanceTarget;
}

/** The SQL operations HA needs, as an interface so reconcile tests can stand in for PostgreSQL. */
export interface InstanceSql {
  probeInstance(t: InstanceTarget, timeoutMs: number): Promise<InstanceProbe>;
  promote(t: InstanceTarget, timeoutSeconds: number): Promise<void>;
  checkpoint(t: InstanceTarget): Promise<void>;
  /** ALTER ROLE ... PASSWORD with a SCRAM verifier. */
  setRolePassword(t: InstanceTarget, role: string, verifier: string): Promise<void>;
  /** Whether the server accepts t's user and password (throws when it does not answer). */
  acceptsPassword(t: InstanceTarget): Promise<boolean>;
  /** Rewrites the instance's replication passfile with t's password; false when it has none. */
  writePassfile(t: InstanceTarget): Promise<boolean>;
  /** Leaves the repair marker in a replica's data directory (stuck-replica.ts). */
  requestRepair(t: InstanceTarget): Promise<void>;
  /** pg_reload_conf(), waiting until it took effect. */
  reloadConfiguration(t: InstanceTarget): Promise<void>;
  /** Creates or completes the operator's roles on a primary (specs/roles.ts). */
  ensureRoles(t: InstanceTarget): Promise<void>;
  applyParameters(
    t: InstanceTarget,
    desired: Record<string, string>,
  ): Promise<{
    changed: boolean;
    pendingRestart: string[];
    notApplied: string[];
    heldBack?: string;
  }>;
}
