/**
 * The operator's SQL edge: everything it asks of a PostgreSQL instance, over TCP. The only
 * module that imports `pg` (probe-sessions.ts keeps the monitor's clients open, made here).
 *
 * Who it logs in as is the target's (ha/targets.ts, ADR 0019): `pgkeeper_monitor` for the probe,
 * promotion, checkpoint, reload and repair request; the superuser for what PostgreSQL lets no
 * lesser role do (ALTER SYSTEM, passwords, creating the roles). A monitor target carries the
 * superuser as its fallback, taken when the server refuses the monitor for want of its role, a
 * pg_hba.conf line or a grant: a database cluster from before the role, until the operator has
 * set it up.
 *
 * Every call opens one connection and always closes it, and is bounded in time: a connect
 * timeout, a server-side statement_timeout, and an overall deadline that destroys the socket, so
 * a frozen server (SIGSTOP, a hung node) costs the caller its timeout and no more. Errors are
 * `InstanceSqlError`s naming the operation and host:port; they never carry the password nor the
 * driver's error object (which a log serializer could expand).
 */
import pg from "pg";
import {
  isListQuoted,
  sameFileValue,
  SettingRow,
  settingMatches,
  splitList,
} from "../lib/guc-value";
import { HOT_STANDBY_LIMIT_NAMES } from "./hot-standby-limits";
import { parseLsn } from "./lsn";
import { FILE_REPAIR_MARKER, SUPERUSER } from "../specs/layout";
import {
  CHECKPOINT_FUNCTION,
  CREATE_MISSING_ROLES,
  FILES_CHANGED_FUNCTION,
  FILES_CHANGED_QUERY,
  REPAIR_FUNCTION,
  ROLES_CURRENT_SQL,
  ROLES_SETUP,
} from "../specs/roles";

import type { ArchiverState, InstanceProbe, InstanceTarget, StandbyInfo } from "./probe-types";

export type { InstanceProbe, InstanceTarget, StandbyInfo };

export interface ApplyResult {
  /** Whether postgresql.auto.conf was rewritten (and the configuration reloaded). */
  changed: boolean;
  /** Every parameter waiting for a restart after the reload, sorted. */
  pendingRestart: string[];
  /** Desired parameters whose value in effect differs (restart-only ones until the restart). */
  notApplied: string[];
}

/** An operation on an instance failed. `code` is the SQLSTATE or the system error code. */
export class InstanceSqlError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "InstanceSqlError";
  }
}

/** A polite close (Terminate message) may take this long before the socket is destroyed. */
const CLOSE_GRACE_MS = 500;
/** Time for connecting and the checks around pg_promote's own wait. */
const PROMOTE_SLACK_MS = 5000;
const RELOAD_POLL_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

export const addressOf = (t: Pick<InstanceTarget, "host" | "port">): string =>
  t.host.includes(":") ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;

/**
 * The message of anything thrown. Duck-typed: errors made by Node itself (ECONNREFUSED) are not
 * `instanceof Error` inside a jest sandbox, and a driver may throw non-Errors.
 */
function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : String(err);
}

/** Error → InstanceSqlError with the operation and address, the password scrubbed. */
export function wrap(err: unknown, what: string, t: InstanceTarget): InstanceSqlError {
  if (err instanceof InstanceSqlError && err.message.startsWith(`${what} on `)) return err;
  const raw = messageOf(err);
  const scrub = (s: string): string => (t.password ? s.split(t.password).join("********") : s);
  const code = (err as { code?: unknown } | null)?.code;
  return new InstanceSqlError(
    `${what} on ${addressOf(t)}: ${scrub(raw)}`,
    typeof code === "string" ? code : undefined,
  );
}

/** Closes a client: Terminate politely if it connected, never wait long, always free the socket. */
export async function close(client: pg.Client, connected: boolean): Promise<void> {
  if (connected) {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>(r => (timer = setTimeout(r, CLOSE_GRACE_MS)));
    await Promise.race([client.end().catch(() => undefined), grace]);
    clearTimeout(timer);
  }
  client.connection.stream.destroy();
}

/** Codes of a server refusing who we are, not failing: the monitor's fallback applies. */
const REFUSED_IDENTITY = new Set([
  "28000", // invalid_authorization_specification: no pg_hba.conf line, no such role, bad certificate
  "28P01", // invalid_password
  "42501", // insufficient_privilege: a grant this version needs is missing
  "42883", // undefined_function: a function of the setup is missing
  "3F000", // invalid_schema_name: the schema pgkeeper is missing
]);

/** Whether the server refused the identity (an answer, not a failure of the instance). */
export const refusedIdentity = (err: unknown): boolean =>
  REFUSED_IDENTITY.has(String((err as { code?: unknown } | null)?.code));

/**
 * The password of an identity that has none (the monitor logs in by certificate): a server that
 * asks for one has no certificate line for it in pg_hba.conf yet, which is a refusal.
 */
const certificateOnly = (t: InstanceTarget) => (): Promise<string> =>
  Promise.reject(
    Object.assign(
      new Error(
        `the server asks ${t.user ?? SUPERUSER} for a password: it has no certificate login`,
      ),
      { code: "28000" },
    ),
  );

/** Whether `t` logs in as the superuser (the monitor asks through SECURITY DEFINER functions). */
const privileged = (t: InstanceTarget): boolean => (t.user ?? SUPERUSER) === SUPERUSER;

/**
 * A client for `t` whose statements the server stops after `budgetMs` (`statement_timeout`), so
 * work abandoned by a caller's deadline stops there too. Not connected yet.
 */
export function newClient(
  t: InstanceTarget,
  budgetMs: number,
  applicationName = "pgkeeper",
): pg.Client {
  const client = new pg.Client({
    host: t.host,
    port: t.port,
    user: t.user ?? SUPERUSER,
    password: t.password === "" ? certificateOnly(t) : t.password,
    database: t.database ?? "postgres",
    application_name: applicationName,
    connectionTimeoutMillis: budgetMs,
    statement_timeout: budgetMs,
    keepAlive: true,
    // verify-full: the chain to the Database's (or the user's) CA, and the pod's DNS name, since
    // the host is its IP (pg sets no servername for an IP; Node checks the one given here).
    ...(t.tls
      ? {
          ssl: {
            ca: t.tls.ca,
            cert: t.tls.cert,
            key: t.tls.key,
            servername: t.tls.servername,
            rejectUnauthorized: true,
          },
        }
      : {}),
  });
  // Without a listener, a server dying between statements would be an uncaught 'error' event
  // that kills the operator; the failure reaches callers through the pending query or a deadline.
  client.on("error", () => undefined);
  return client;
}

/**
 * Runs `work` on a fresh connection within `budgetMs` (connecting included). `statementMs`
 * bounds each statement on the server too, so work abandoned by the deadline stops there. When
 * the server refuses `t`'s identity and `t` has a fallback, `work` runs again as the fallback
 * within what is left of the budget.
 */
async function withClient<T>(
  t: InstanceTarget,
  what: string,
  budgetMs: number,
  work: (c: pg.Client, t: InstanceTarget) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + budgetMs;
  try {
    return await onFreshClient(t, what, budgetMs, work);
  } catch (err) {
    const left = deadline - Date.now();
    if (!t.fallback || !refusedIdentity(err) || left <= 0) throw err;
    return onFreshClient(t.fallback, what, left, work);
  }
}

async function onFreshClient<T>(
  t: InstanceTarget,
  what: string,
  budgetMs: number,
  work: (c: pg.Client, t: InstanceTarget) => Promise<T>,
): Promise<T> {
  const client = newClient(t, budgetMs);
  let connected = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new InstanceSqlError(`${what} on ${addressOf(t)}: no answer within ${budgetMs} ms`));
      client.connection.stream.destroy();
    }, budgetMs);
  });
  const run = async (): Promise<T> => {
    await client.connect();
    connected = true;
    return work(client, t);
  };
  try {
    return await Promise.race([run(), deadline]);
  } catch (err) {
    throw wrap(err, what, t);
  } finally {
    clearTimeout(timer);
    await close(client, connected);
  }
}

async function one<R extends pg.QueryResultRow>(
  c: pg.Client,
  sql: string,
  params: unknown[] = [],
): Promise<R> {
  const { rows } = await c.query<R>(sql, params);
  if (rows.length !== 1) throw new Error(`expected one row from ${sql}, got ${rows.length}`);
  return rows[0];
}

async function inRecovery(c: pg.Client): Promise<boolean> {
  return (await one<{ r: boolean }>(c, "SELECT pg_is_in_recovery() AS r")).r;
}

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
  }>(
    c,
    `SELECT archived_count AS archived, last_archived_wal, last_archived_time,
            failed_count AS failed, last_failed_wal, last_failed_time,
            (SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready') AS ready
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
 * which a hot standby allows (it takes an absolute path only). The entrypoint acts on it at the
 * next start. A server out of recovery is refused: a primary is never repaired.
 */
export async function requestRepair(t: InstanceTarget, timeoutMs = 10_000): Promise<void> {
  await withClient(t, "request repair", timeoutMs, async (c, as) => {
    if (!privileged(as)) {
      await c.query(`SELECT ${REPAIR_FUNCTION}`);
      return;
    }
    if (!(await inRecovery(c))) throw new Error("not in recovery: only a replica is repaired");
    const { dir } = await one<{ dir: string }>(
      c,
      "SELECT current_setting('data_directory') AS dir",
    );
    const file = `${dir}/${FILE_REPAIR_MARKER}`.replace(/'/g, "''");
    await c.query(`COPY (SELECT now()::text) TO '${file}'`);
  });
}

// ---- passwords -------------------------------------------------------------------------------

/** Statements of this session stay out of the server log, whatever the logging settings. */
async function quietSession(c: pg.Client): Promise<void> {
  await c.query(
    "SET log_statement = 'none'; SET log_min_error_statement = 'panic'; SET log_min_duration_statement = -1",
  );
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

// ---- parameters -------------------------------------------------------------------------------

/**
 * Parameter names are case-insensitive in PostgreSQL, but ALTER SYSTEM writes a quoted name as
 * given ("Work_Mem"), so names are folded to lower case before anything is compared or written.
 */
function normalize(desired: Record<string, string>): Map<string, string> {
  const wanted = new Map<string, string>();
  for (const [name, value] of Object.entries(desired)) {
    const key = name.toLowerCase();
    if (wanted.has(key)) throw new Error(`parameter ${name} is given twice (names ignore case)`);
    wanted.set(key, value);
  }
  return wanted;
}

/** What postgresql.auto.conf holds now, read from disk by pg_file_settings. */
async function readAutoConf(c: pg.Client): Promise<Map<string, string>> {
  const { rows } = await c.query<{ name: string; setting: string | null }>(
    `SELECT name, setting FROM pg_file_settings
      WHERE sourcefile = current_setting('data_directory') || '/postgresql.auto.conf'
      ORDER BY seqno`,
  );
  return new Map(rows.map(r => [r.name.toLowerCase(), r.setting ?? ""]));
}

function sameEntries(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, value] of b) {
    const other = a.get(name);
    if (other === undefined || !sameFileValue(name, other, value)) return false;
  }
  return true;
}

/**
 * ALTER SYSTEM SET, one literal per element for GUC_LIST_QUOTE parameters: given 'a,b' as one
 * literal, PostgreSQL would write the single element "a,b" (see guc-value.ts).
 */
function alterSystemSet(name: string, value: string): string {
  const literals = isListQuoted(name) ? splitList(name, value) : [value];
  const list = literals.length === 0 ? "''" : literals.map(v => pg.escapeLiteral(v)).join(", ");
  return `ALTER SYSTEM SET ${pg.escapeIdentifier(name)} = ${list}`;
}

/** RESET ALL, then SET each: postgresql.auto.conf holds exactly `entries`. */
async function writeExactly(c: pg.Client, entries: Map<string, string>): Promise<void> {
  await c.query("ALTER SYSTEM RESET ALL");
  for (const [name, value] of entries) await c.query(alterSystemSet(name, value));
}

/**
 * Validate-then-write. Nothing validates a value for every parameter context without writing
 * (set_config() refuses sighup and postmaster parameters before it looks at the value), so the
 * validation is ALTER SYSTEM SET itself, one desired parameter at a time: it checks name and
 * value as the server will and rewrites the file atomically. If one is refused, the previous
 * file is written back before we throw, and as nothing was reloaded in between, the running
 * configuration never saw the partial file. Once all are accepted, RESET ALL + SET each drops the
 * parameters no longer desired.
 */
async function rewriteAutoConf(
  c: pg.Client,
  previous: Map<string, string>,
  wanted: Map<string, string>,
): Promise<void> {
  for (const [name, value] of wanted) {
    try {
      await c.query(alterSystemSet(name, value));
    } catch (err) {
      const why = messageOf(err);
      try {
        await writeExactly(c, previous);
      } catch (restoreErr) {
        const how = messageOf(restoreErr);
        throw new Error(
          `parameter ${name}: ${why} (and restoring postgresql.auto.conf failed: ${how})`,
        );
      }
      throw new Error(`parameter ${name}: ${why}`);
    }
  }
  if ([...previous.keys()].some(name => !wanted.has(name))) await writeExactly(c, wanted);
}

/**
 * pg_reload_conf() only signals the postmaster; it returns before anything is reloaded. Our own
 * backend reloads when the postmaster passes the signal on, and pg_settings (pending_restart
 * included) shows the new file only then: wait for this session's pg_conf_load_time() to move.
 */
async function reloadAndWait(c: pg.Client): Promise<void> {
  const before = (await one<{ t: string }>(c, "SELECT pg_conf_load_time()::text AS t")).t;
  await c.query("SELECT pg_reload_conf()");
  for (;;) {
    const sql = "SELECT pg_conf_load_time() > $1::timestamptz AS reloaded";
    if ((await one<{ reloaded: boolean }>(c, sql, [before])).reloaded) return;
    await sleep(RELOAD_POLL_MS); // bounded by withClient's deadline
  }
}

async function restartAndDrift(
  c: pg.Client,
  wanted: Map<string, string>,
): Promise<Omit<ApplyResult, "changed">> {
  const pending = await c.query<{ name: string }>(
    "SELECT name FROM pg_settings WHERE pending_restart ORDER BY name",
  );
  const { rows } = await c.query<SettingRow>(
    "SELECT name, setting, unit, vartype FROM pg_settings WHERE name = ANY($1)",
    [[...wanted.keys()]],
  );
  const inEffect = new Map(rows.map(r => [r.name, r]));
  const notApplied = [...wanted]
    .filter(([name, value]) => {
      const row = inEffect.get(name);
      return row === undefined || !settingMatches(row, value);
    })
    .map(([name]) => name)
    .sort();
  return { pendingRestart: pending.rows.map(r => r.name), notApplied };
}

/**
 * Makes postgresql.auto.conf hold exactly `desired` (names folded to lower case), reloading
 * when it changed. Works on a primary and on a hot standby (ALTER SYSTEM writes a file, no WAL).
 * A refused name or value throws an error naming the parameter with PostgreSQL's message and
 * leaves the file as it was. postgresql.auto.conf belongs to this function: anything else
 * written there (pg_basebackup -R's primary_conninfo) is removed.
 */
export async function applyParameters(
  t: InstanceTarget,
  desired: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ApplyResult> {
  return withClient(t, "applyParameters", timeoutMs, async c => {
    const wanted = normalize(desired);
    const previous = await readAutoConf(c);
    const changed = !sameEntries(previous, wanted);
    if (changed) {
      await rewriteAutoConf(c, previous, wanted);
      await reloadAndWait(c);
    }
    return { changed, ...(await restartAndDrift(c, wanted)) };
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
