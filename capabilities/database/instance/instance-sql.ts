/**
 * The operator's SQL edge: everything it asks of a PostgreSQL instance, over TCP, through
 * sql-session.ts (which bounds every call and picks the identity): the probe, promotion,
 * checkpoint, the repair request, passwords, reloads and the operator's roles. Parameters are
 * parameters-sql.ts's.
 *
 * Who it logs in as is the target's (targets.ts, ADR 0019): `pgkeeper_monitor` for the probe,
 * promotion, checkpoint, reload and repair request; the superuser for what PostgreSQL lets no
 * lesser role do (ALTER SYSTEM, passwords, creating the roles).
 */
import pg from "pg";
import { HOT_STANDBY_LIMIT_NAMES } from "../specs/hot-standby-parameters";
import { parseLsn } from "./lsn";
import {
  CHECKPOINT_FUNCTION,
  CREATE_MISSING_ROLES,
  FILES_CHANGED_FUNCTION,
  FILES_CHANGED_QUERY,
  REPAIR_BLOCK,
  REPAIR_FUNCTION,
  ROLES_CURRENT_SQL,
  ROLES_SETUP,
} from "../specs/roles";
import {
  InstanceSqlError,
  inRecovery,
  one,
  privileged,
  reloadAndWait,
  withClient,
} from "./sql-session";

import type { ArchiverState, InstanceProbe, InstanceTarget, StandbyInfo } from "./types";

export type { InstanceProbe, InstanceTarget, StandbyInfo };
export { InstanceSqlError } from "./sql-session";
export { applyParameters } from "./parameters-sql";
export type { ApplyResult } from "./parameters-sql";

/** Time for connecting and the checks around pg_promote's own wait. */
const PROMOTE_SLACK_MS = 5000;

// ---- probe ----------------------------------------------------------------------------------

/**
 * Whether pg_hba.conf or a TLS file changed on disk after the server last loaded its
 * configuration: the kubelet updated a mounted ConfigMap or Secret (a renewed certificate), and
 * a reload applies it without a restart.
 */
const filesChangedSql = (asSuperuser: boolean): string =>
  asSuperuser ? `(${FILES_CHANGED_QUERY})` : FILES_CHANGED_FUNCTION;

type Role = Pick<
  InstanceProbe,
  "timeline" | "lsn" | "replayLsn" | "walReceiverStatus" | "archiver" | "rolesOutdated"
> & {
  standbys: StandbyInfo[];
};

async function primaryState(c: pg.Client): Promise<Role> {
  // pg_control_checkpoint() lags a promotion until the next checkpoint; the WAL file name of the
  // insert position carries the timeline being written right now.
  const row = await one<{
    lsn: string;
    walfile: string;
    archiving: boolean;
    roles_current: boolean;
  }>(
    c,
    `SELECT pg_current_wal_lsn()::text AS lsn, pg_walfile_name(pg_current_wal_lsn()) AS walfile,
            current_setting('archive_mode') <> 'off' AS archiving,
            ${ROLES_CURRENT_SQL} AS roles_current`,
  );
  const { rows } = await c.query<{
    name: string;
    state: string;
    sync_state: string;
    flush_lsn: string | null;
    replay_lsn: string | null;
  }>(
    `SELECT application_name AS name, state, sync_state, flush_lsn::text, replay_lsn::text
       FROM pg_stat_replication ORDER BY application_name, pid`,
  );
  return {
    timeline: parseInt(row.walfile.slice(0, 8), 16),
    lsn: row.lsn,
    ...(row.roles_current ? {} : { rolesOutdated: true }),
    // Read only where archiving is on: the probe runs every second on every primary.
    ...(row.archiving ? { archiver: await archiverState(c) } : {}),
    standbys: rows.map(r => ({
      name: r.name,
      state: r.state,
      syncState: r.sync_state,
      flushLsn: r.flush_lsn ?? undefined,
      replayLsn: r.replay_lsn ?? undefined,
    })),
  };
}

/**
 * pg_stat_archiver, and how many segments wait in pg_wal for archive_command (.ready files):
 * PostgreSQL keeps each until it is archived.
 */
async function archiverState(c: pg.Client): Promise<ArchiverState> {
  const row = await one<{
    archived: string;
    last_archived_wal: string | null;
    last_archived_time: Date | null;
    failed: string;
    last_failed_wal: string | null;
    last_failed_time: Date | null;
    ready: string;
    has_pgbackrest: string | null;
  }>(
    c,
    `SELECT archived_count AS archived, last_archived_wal, last_archived_time,
            failed_count AS failed, last_failed_wal, last_failed_time,
            (SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready') AS ready,
            current_setting('pgkeeper.image_has_pgbackrest', true) AS has_pgbackrest
       FROM pg_stat_archiver`,
  );
  return {
    archivedCount: Number(row.archived),
    ...(row.last_archived_wal ? { lastArchivedWal: row.last_archived_wal } : {}),
    ...(row.last_archived_time ? { lastArchivedAt: row.last_archived_time.toISOString() } : {}),
    failedCount: Number(row.failed),
    ...(row.last_failed_wal ? { lastFailedWal: row.last_failed_wal } : {}),
    ...(row.last_failed_time ? { lastFailedAt: row.last_failed_time.toISOString() } : {}),
    waiting: Number(row.ready),
    ...(row.has_pgbackrest === "on" || row.has_pgbackrest === "off"
      ? { imageHasPgBackRest: row.has_pgbackrest === "on" }
      : {}),
  };
}

/** The further of two LSNs, either of which may be absent. */
function furthest(a: string | null, b: string | null): string | undefined {
  if (a === null) return b ?? undefined;
  if (b === null) return a;
  return parseLsn(a) >= parseLsn(b) ? a : b;
}

async function replicaState(c: pg.Client): Promise<Role> {
  const row = await one<{
    receive_lsn: string | null;
    replay_lsn: string | null;
    status: string | null;
    received_tli: number | null;
    checkpoint_tli: number;
  }>(
    c,
    `SELECT pg_last_wal_receive_lsn()::text AS receive_lsn,
            pg_last_wal_replay_lsn()::text AS replay_lsn,
            (SELECT status FROM pg_stat_wal_receiver) AS status,
            (SELECT received_tli FROM pg_stat_wal_receiver) AS received_tli,
            (SELECT timeline_id FROM pg_control_checkpoint()) AS checkpoint_tli`,
  );
  // The WAL this standby holds: what it received, or what it replayed when that is further. A
  // restarted standby replays its own pg_wal first, then reports as received the start of the
  // segment its WAL receiver will stream from, behind what it holds; taking that figure made a
  // failover promote a standby with less WAL than another (test/postgres/standby-position).
  const lsn = furthest(row.receive_lsn, row.replay_lsn);
  if (lsn === undefined)
    throw new Error("in recovery but reports neither a received nor a replayed LSN");
  return {
    // received_tli is 0 until the receiver has received anything
    timeline: row.received_tli ? row.received_tli : row.checkpoint_tli,
    ...(row.received_tli ? {} : { timelineAtLeast: true }),
    lsn,
    replayLsn: row.replay_lsn ?? undefined,
    walReceiverStatus: row.status ?? undefined,
    standbys: [],
  };
}

/**
 * Role, timeline, WAL positions, replication and restart state of one instance, on a connection
 * of its own. The monitor probes on long-lived sessions instead (probe-sessions.ts).
 */
export async function probeInstance(t: InstanceTarget, timeoutMs: number): Promise<InstanceProbe> {
  return withClient(t, "probe", timeoutMs, probeQueries);
}

/** The probe's statements on a client connected as `t` says. */
export async function probeQueries(c: pg.Client, t: InstanceTarget): Promise<InstanceProbe> {
  const common = await one<{
    in_recovery: boolean;
    started: Date;
    pending: string[];
    limits: Record<string, string> | null;
    files_changed: boolean | null;
  }>(
    c,
    `SELECT pg_is_in_recovery() AS in_recovery, pg_postmaster_start_time() AS started,
              ARRAY(SELECT name FROM pg_settings WHERE pending_restart ORDER BY name) AS pending,
              (SELECT json_object_agg(name, setting) FROM pg_settings WHERE name = ANY($1)) AS limits,
              ${filesChangedSql(privileged(t))} AS files_changed`,
    [HOT_STANDBY_LIMIT_NAMES],
  );
  const role = common.in_recovery ? await replicaState(c) : await primaryState(c);
  return {
    inRecovery: common.in_recovery,
    ...(privileged(t) ? {} : { byMonitor: true }),
    ...role,
    ...(common.files_changed ? { configFilesChanged: true } : {}),
    postmasterStartTime: common.started.toISOString(),
    pendingRestart: common.pending,
    hotStandbyLimits: Object.fromEntries(
      Object.entries(common.limits ?? {}).map(([name, value]) => [name, Number(value)]),
    ),
  };
}

// ---- promote, checkpoint ----------------------------------------------------------------------

/**
 * pg_promote(wait => true, wait_seconds => n); resolves once the server is out of recovery.
 * Idempotent: a server already out of recovery (promoted earlier, or by a concurrent call that
 * won the race) resolves without promoting again, so the timeline moves once. Throws when
 * PostgreSQL refuses or the server is still in recovery after `timeoutSeconds`.
 */
export async function promote(t: InstanceTarget, timeoutSeconds: number): Promise<void> {
  const seconds = Math.max(1, Math.ceil(timeoutSeconds));
  await withClient(t, "promote", seconds * 1000 + PROMOTE_SLACK_MS, async c => {
    if (!(await inRecovery(c))) return;
    let promoted: boolean;
    try {
      promoted = (await one<{ p: boolean }>(c, "SELECT pg_promote(true, $1) AS p", [seconds])).p;
    } catch (err) {
      // "recovery is not in progress": someone else promoted it between our two statements.
      if (!(await inRecovery(c))) return;
      throw err;
    }
    if (!promoted || (await inRecovery(c)))
      throw new Error(`still in recovery ${seconds} s after pg_promote()`);
  });
}

/** CHECKPOINT (a restartpoint on a standby): before a switchover, so the old primary stops fast. */
export async function checkpoint(t: InstanceTarget, timeoutMs = 120_000): Promise<void> {
  await withClient(t, "checkpoint", timeoutMs, async (c, as) => {
    await c.query(privileged(as) ? "CHECKPOINT" : `SELECT ${CHECKPOINT_FUNCTION}`);
  });
}

/**
 * Leaves the repair marker (stuck-replica.ts) in a replica's data directory with COPY ... TO,
 * which a hot standby allows (specs/roles.ts: the monitor through a function, the superuser of a
 * cluster without it as a DO block of the same body). The entrypoint acts on it at the
 * next start. A server out of recovery is refused: a primary is never repaired.
 */
export async function requestRepair(t: InstanceTarget, timeoutMs = 10_000): Promise<void> {
  await withClient(t, "request repair", timeoutMs, async (c, as) => {
    await c.query(privileged(as) ? REPAIR_BLOCK : `SELECT ${REPAIR_FUNCTION}`);
  });
}

// ---- passwords -------------------------------------------------------------------------------

/**
 * Statements of this session stay out of the server log, whatever the logging settings: each
 * route PostgreSQL logs a statement by (all of them, by duration, sampled statements, sampled
 * transactions, the statement of an error) and auto_explain's plans, whose query text would show
 * the passfile's line. A SET of an extension's parameter that is not loaded only makes a
 * placeholder.
 */
const QUIET = [
  "log_statement = 'none'",
  "log_min_error_statement = 'panic'",
  "log_min_duration_statement = -1",
  "log_min_duration_sample = -1",
  "log_transaction_sample_rate = 0",
  "auto_explain.log_min_duration = -1",
  // Not the log, but as readable: pg_stat_statements keeps a utility statement's text.
  "pg_stat_statements.track_utility = off",
];

async function quietSession(c: pg.Client): Promise<void> {
  await c.query(QUIET.map(setting => `SET ${setting}`).join("; "));
}

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** ALTER ROLE ... PASSWORD with a SCRAM verifier (lib/scram.ts): the password never travels. */
export async function setRolePassword(
  t: InstanceTarget,
  role: string,
  verifier: string,
  timeoutMs = 10_000,
): Promise<void> {
  await withClient(t, "set password", timeoutMs, async c => {
    await quietSession(c);
    await c.query(`ALTER ROLE ${pg.escapeIdentifier(role)} PASSWORD ${sqlString(verifier)}`);
  });
}

/** True when the server accepts `t`'s user and password; false when it refuses them. */
export async function acceptsPassword(t: InstanceTarget, timeoutMs = 10_000): Promise<boolean> {
  try {
    await withClient(t, "log in", timeoutMs, async c => void (await c.query("SELECT 1")));
    return true;
  } catch (err) {
    // 28P01 invalid_password; anything else (unreachable, starting) is not an answer
    if (err instanceof InstanceSqlError && err.code === "28P01") return false;
    throw err;
  }
}

/** libpq passfile escaping: backslash and colon. */
const passfileField = (s: string): string => s.replace(/[\\:]/g, "\\$&");

/**
 * Rewrites the instance's replication passfile (named by its primary_conninfo) with the
 * password `t` logs in with, over SQL: a standby's WAL receiver reads it at every connection, so
 * a rotated superuser password reaches replication with no restart. COPY in CSV format with
 * delimiter and quote characters no password has writes the line as it is. Returns false when
 * the instance names no passfile.
 */
export async function writePassfile(t: InstanceTarget, timeoutMs = 10_000): Promise<boolean> {
  if ([...t.password].some(ch => ch.charCodeAt(0) < 0x20))
    throw new Error("a password with control characters");
  return withClient(t, "write passfile", timeoutMs, async c => {
    await quietSession(c);
    const { conninfo } = await one<{ conninfo: string }>(
      c,
      "SELECT current_setting('primary_conninfo') AS conninfo",
    );
    const file = /(?:^|\s)passfile=(\S+)/.exec(conninfo)?.[1];
    if (!file) return false;
    const line = `*:*:*:${passfileField(t.user ?? "postgres")}:${passfileField(t.password)}`;
    await c.query(
      `COPY (SELECT ${sqlString(line)}) TO ${sqlString(file)} WITH (FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01')`,
    );
    return true;
  });
}

// ---- TLS upkeep (ADR 0017) ------------------------------------------------------------------

/** Reloads the configuration (pg_hba.conf and the TLS files included) and waits until it is. */
export async function reloadConfiguration(t: InstanceTarget, timeoutMs = 10_000): Promise<void> {
  await withClient(t, "reload", timeoutMs, reloadAndWait);
}

/**
 * Creates or completes the operator's roles on a primary (specs/roles.ts): one transaction, so a
 * cluster has the whole setup of this version or what it had before. As the superuser.
 */
export async function ensureRoles(t: InstanceTarget, timeoutMs = 10_000): Promise<void> {
  await withClient(t, "set up the operator's roles", timeoutMs, async c => {
    await c.query("BEGIN");
    await c.query(CREATE_MISSING_ROLES);
    for (const statement of ROLES_SETUP) await c.query(statement);
    await c.query("COMMIT");
  });
}
