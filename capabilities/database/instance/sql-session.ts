/**
 * How the operator talks to one PostgreSQL instance (instance-sql.ts, parameters-sql.ts,
 * probe-sessions.ts): the client, who it logs in as, and the bounds on every call. The only
 * module that makes a `pg` client.
 *
 * Every call opens one connection and always closes it, and is bounded in time: a connect
 * timeout, a server-side statement_timeout, and an overall deadline that destroys the socket, so
 * a frozen server (SIGSTOP, a hung node) costs the caller its timeout and no more. Errors are
 * `InstanceSqlError`s naming the operation and host:port; they never carry the password nor the
 * driver's error object (which a log serializer could expand).
 *
 * Whoever answers, it logs in only with SCRAM (iterations capped) or a certificate: a request for
 * a cleartext or MD5 password is hung up on before the password is sent.
 *
 * Who it logs in as is the target's (targets.ts, ADR 0019). A monitor target carries the
 * superuser as its fallback, taken when the server refuses the monitor for want of its role, a
 * pg_hba.conf line or a grant: a database cluster from before the role, until the operator has
 * set it up.
 */
import pg from "pg";
import { SUPERUSER } from "../specs/layout";
import type { InstanceTarget } from "./types";
import { within } from "../lib/within";

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

/**
 * The code of a call that got no answer in time: silence, which a slow node or a starved operator
 * causes as well as a dead server (instance/timeout-verdict.ts), unlike a refusal or an error.
 */
export const NO_ANSWER = "PGKEEPER_NO_ANSWER";

/** Whether `err` is a call that got no answer in time. */
export const isSilence = (err: unknown): boolean =>
  (err as { code?: unknown } | null)?.code === NO_ANSWER;

/** A polite close (Terminate message) may take this long before the socket is destroyed. */
const CLOSE_GRACE_MS = 500;
const RELOAD_POLL_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

export const addressOf = (t: Pick<InstanceTarget, "host" | "port">): string =>
  t.host.includes(":") ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;

/**
 * The message of anything thrown. Duck-typed: errors made by Node itself (ECONNREFUSED) are not
 * `instanceof Error` inside a jest sandbox, and a driver may throw non-Errors.
 */
export function messageOf(err: unknown): string {
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

/**
 * SCRAM's iteration count is the server's to choose, and the client pays for it: PBKDF2 on Node's
 * thread pool, which every probe of every Database shares. A hostile server asking for 2^31
 * would tie a thread up for minutes. Our verifiers use 4096 (PostgreSQL's default); PostgreSQL
 * 16+ lets a user raise `scram_iterations`, so some room is left.
 */
export const MAX_SCRAM_ITERATIONS = 100_000;

/** A server asked for the password in a form other than SCRAM: refused before anything is sent. */
export const AUTH_REFUSED = "PGKEEPER_AUTH_REFUSED";

/**
 * The password requests pgkeeper never answers: cleartext sends the password itself, MD5 a hash
 * of it anyone who asked can replay or crack offline. SCRAM proves the password without
 * revealing it, so only SCRAM (or a certificate) is used, whoever is at the other end.
 */
const REFUSED_PASSWORD_REQUESTS = {
  authenticationCleartextPassword: "a cleartext password",
  authenticationMD5Password: "an MD5-hashed password",
} as const;

/**
 * Makes `client` hang up on a cleartext or MD5 password request. Registered before `connect()`,
 * so before the client's own handler, which then writes to a socket that is already destroyed:
 * not a byte of the password leaves.
 */
function scramOnly(client: pg.Client, t: InstanceTarget): void {
  for (const [event, what] of Object.entries(REFUSED_PASSWORD_REQUESTS))
    client.connection.on(event, () =>
      client.connection.stream.destroy(
        Object.assign(
          new Error(
            `the server asked ${t.user ?? SUPERUSER} for ${what}; pgkeeper logs in only with SCRAM or a certificate`,
          ),
          { code: AUTH_REFUSED },
        ),
      ),
    );
}

/**
 * What a server may send in answer to one call (a probe, an operation): the operator's answers
 * are a few kilobytes, pg_settings' whole table under 100 KB. The driver buffers every row, and
 * its parser a whole message, before anything sees them: without a bound, a tenant's own image
 * could make the operator hold gigabytes, and the probes of every Database with it.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** A server sent more than MAX_ANSWER_BYTES for one call: hung up on. */
export const ANSWER_TOO_LARGE = "PGKEEPER_ANSWER_TOO_LARGE";

/** Per client: how to start counting again (a probe session answers many probes). */
const answerBudgets = new WeakMap<pg.Client, () => void>();

/**
 * Counts the bytes the server sends on `client`, on the socket and, once TLS is up, on the TLS
 * stream that replaces it; past `limit` since the last reset, destroys the socket. Counted as
 * they arrive, so a single huge message is cut before the parser has buffered it.
 */
function meterAnswers(client: pg.Client, t: InstanceTarget, limit: number): void {
  let received = 0;
  const count = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit)
      client.connection.stream.destroy(
        Object.assign(
          new Error(`the server at ${addressOf(t)} sent more than ${limit} bytes for one call`),
          { code: ANSWER_TOO_LARGE },
        ),
      );
  };
  client.connection.stream.on("data", count);
  client.connection.on("sslconnect", () => client.connection.stream.on("data", count));
  answerBudgets.set(client, () => (received = 0));
}

/** A session's next call may receive MAX_ANSWER_BYTES again (probe-sessions.ts, per probe). */
export const resetAnswerBudget = (client: pg.Client): void => answerBudgets.get(client)?.();

/** Whether `t` logs in as the superuser (the monitor asks through SECURITY DEFINER functions). */
export const privileged = (t: InstanceTarget): boolean => (t.user ?? SUPERUSER) === SUPERUSER;

/**
 * A client for `t` whose statements the server stops after `budgetMs` (`statement_timeout`), so
 * work abandoned by a caller's deadline stops there too. Not connected yet.
 */
export function newClient(
  t: InstanceTarget,
  budgetMs: number,
  applicationName = "pgkeeper",
  answerLimit = MAX_ANSWER_BYTES,
): pg.Client {
  const client = new pg.Client({
    host: t.host,
    port: t.port,
    user: t.user ?? SUPERUSER,
    password: t.password === "" ? certificateOnly(t) : t.password,
    database: t.database ?? "postgres",
    application_name: applicationName,
    // No connectionTimeoutMillis: each caller's deadline (lib/within.ts) destroys the socket, and
    // pg's own timer would beat it after a stall of the event loop, with a vaguer message.
    statement_timeout: budgetMs,
    keepAlive: true,
    // Every name we use is the catalog's: a search_path set on the database or role (ALTER
    // DATABASE postgres SET search_path = evil, pg_catalog) must not put a tenant's view of
    // pg_settings before it. Startup options outrank those settings.
    options: "-c search_path=pg_catalog,pg_temp",
    // pg checks it before deriving the key (not in @types/pg yet).
    ...{ scramMaxIterations: MAX_SCRAM_ITERATIONS },
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
  scramOnly(client, t);
  meterAnswers(client, t, answerLimit);
  return client;
}

/**
 * Runs `work` on a fresh connection within `budgetMs` (connecting included). `statementMs`
 * bounds each statement on the server too, so work abandoned by the deadline stops there. When
 * the server refuses `t`'s identity and `t` has a fallback, `work` runs again as the fallback
 * within what is left of the budget.
 */
export async function withClient<T>(
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
  const run = async (): Promise<T> => {
    await client.connect();
    connected = true;
    return work(client, t);
  };
  try {
    // An answer that came in while the event loop stalled still counts (lib/within.ts).
    return await within(run(), budgetMs, () => {
      client.connection.stream.destroy();
      return new InstanceSqlError(
        `${what} on ${addressOf(t)}: no answer within ${budgetMs} ms`,
        NO_ANSWER,
      );
    });
  } catch (err) {
    throw wrap(err, what, t);
  } finally {
    await close(client, connected);
  }
}

export async function one<R extends pg.QueryResultRow>(
  c: pg.Client,
  sql: string,
  params: unknown[] = [],
): Promise<R> {
  const { rows } = await c.query<R>(sql, params);
  if (rows.length !== 1) throw new Error(`expected one row from ${sql}, got ${rows.length}`);
  return rows[0];
}

export async function inRecovery(c: pg.Client): Promise<boolean> {
  return (await one<{ r: boolean }>(c, "SELECT pg_is_in_recovery() AS r")).r;
}

/**
 * pg_reload_conf() only signals the postmaster; it returns before anything is reloaded. Our own
 * backend reloads when the postmaster passes the signal on, and pg_settings (pending_restart
 * included) shows the new file only then: wait for this session's pg_conf_load_time() to move.
 */
export async function reloadAndWait(c: pg.Client): Promise<void> {
  const before = (await one<{ t: string }>(c, "SELECT pg_conf_load_time()::text AS t")).t;
  await c.query("SELECT pg_reload_conf()");
  for (;;) {
    const sql = "SELECT pg_conf_load_time() > $1::timestamptz AS reloaded";
    if ((await one<{ reloaded: boolean }>(c, sql, [before])).reloaded) return;
    await sleep(RELOAD_POLL_MS); // bounded by withClient's deadline
  }
}
