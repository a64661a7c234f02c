/**
 * The roles pgkeeper keeps in every database cluster, each with what its holder needs and nothing
 * more (ADR 0017 and 0019). Both log in by certificate only (pg_hba.conf); neither has a password.
 *
 * - `streaming_replica`: LOGIN REPLICATION, for standbys streaming, cloning and rewinding; the
 *   four functions pg_rewind reads the source's files with (PostgreSQL's documented minimum for
 *   a rewind without the superuser), and `pgkeeper.checkpoint()`, which a former primary runs
 *   before pg_rewind so a just-promoted primary shows its new timeline.
 * - `pgkeeper_monitor`: the operator's everyday identity (the probe every second, promotion,
 *   checkpoint, reload, the repair request). `pg_monitor` (every statistic and setting it reads),
 *   EXECUTE on `pg_promote` and `pg_reload_conf`, and three SECURITY DEFINER functions for what
 *   PostgreSQL grants no narrower way: CHECKPOINT (14 has no pg_checkpoint role), the times of
 *   the configuration files outside the data directory (pg_stat_file on an absolute path would
 *   need pg_read_server_files, which reads any file, keys included), and the repair marker (COPY
 *   TO a file would need pg_write_server_files, which writes any file, so equals a superuser).
 *
 * The functions live in the schema `pgkeeper`, which nobody else may use. Its comment says which
 * version of this setup ran to the end: the probe compares it, and the operator runs the setup
 * again (it is idempotent) on a primary whose cluster has none or an older one.
 *
 * One statement per line: single-user mode, which the bootstrap runs them in, ends a statement
 * at a newline. No `$`, backslash or backquote: the lines go through a shell here-document.
 */
import {
  CHECKPOINT_FUNCTION,
  FILE_REPAIR_MARKER,
  FILES_CHANGED_FUNCTION,
  MONITOR_USER,
  REPAIR_FUNCTION,
  REPLICATION_USER,
  ROLES_VERSION,
} from "./layout";

export { CHECKPOINT_FUNCTION, FILES_CHANGED_FUNCTION, REPAIR_FUNCTION, ROLES_VERSION };

const REWIND_FUNCTIONS = [
  "pg_catalog.pg_ls_dir(text, boolean, boolean)",
  "pg_catalog.pg_stat_file(text, boolean)",
  "pg_catalog.pg_read_binary_file(text)",
  "pg_catalog.pg_read_binary_file(text, bigint, bigint, boolean)",
];

/**
 * pg_stat_file's times are whole seconds: a file changed in the second of the last load counts
 * as changed (at worst one reload too many, never one too few). Files that are missing count for
 * nothing. The superuser runs it as it is; the monitor, through FILES_CHANGED_FUNCTION.
 */
export const FILES_CHANGED_QUERY =
  "SELECT max(m) >= date_trunc('second', pg_conf_load_time()) FROM (SELECT (pg_stat_file(current_setting(name), true)).modification AS m FROM unnest(ARRAY['hba_file', 'ssl_cert_file', 'ssl_key_file', 'ssl_ca_file']) AS name) AS files";

/** The repair request on a replica (absolute path: COPY wants one). */
const REPAIR_BODY = `BEGIN IF NOT pg_is_in_recovery() THEN RAISE EXCEPTION 'not in recovery: only a replica is repaired'; END IF; EXECUTE format('COPY (SELECT now()::text) TO %L', current_setting('data_directory') || '/${FILE_REPAIR_MARKER}'); END`;

const quoted = (body: string): string => `'${body.replace(/'/g, "''")}'`;

/** The same request as one statement, for the superuser on a cluster without REPAIR_FUNCTION. */
export const REPAIR_BLOCK = `DO ${quoted(REPAIR_BODY)}`;

/** A function only its grantees may call, running as its owner with a fixed search path. */
const definer = (signature: string, returns: string, language: string, body: string): string[] => [
  `CREATE OR REPLACE FUNCTION ${signature} RETURNS ${returns} LANGUAGE ${language} SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS ${quoted(body)};`,
  `REVOKE ALL ON FUNCTION ${signature} FROM PUBLIC;`,
];

/** Everything but CREATE ROLE: safe to run again, on a new cluster or an existing one. */
export const ROLES_SETUP: readonly string[] = [
  `ALTER ROLE ${REPLICATION_USER} LOGIN REPLICATION NOSUPERUSER;`,
  ...REWIND_FUNCTIONS.map(fn => `GRANT EXECUTE ON FUNCTION ${fn} TO ${REPLICATION_USER};`),
  `ALTER ROLE ${MONITOR_USER} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD NULL;`,
  `GRANT pg_monitor TO ${MONITOR_USER};`,
  `GRANT EXECUTE ON FUNCTION pg_catalog.pg_promote(boolean, integer) TO ${MONITOR_USER};`,
  `GRANT EXECUTE ON FUNCTION pg_catalog.pg_reload_conf() TO ${MONITOR_USER};`,
  "CREATE SCHEMA IF NOT EXISTS pgkeeper;",
  "REVOKE ALL ON SCHEMA pgkeeper FROM PUBLIC;",
  `GRANT USAGE ON SCHEMA pgkeeper TO ${REPLICATION_USER}, ${MONITOR_USER};`,
  ...definer(CHECKPOINT_FUNCTION, "void", "plpgsql", "BEGIN CHECKPOINT; END"),
  `GRANT EXECUTE ON FUNCTION ${CHECKPOINT_FUNCTION} TO ${REPLICATION_USER}, ${MONITOR_USER};`,
  ...definer(FILES_CHANGED_FUNCTION, "boolean", "sql", FILES_CHANGED_QUERY),
  `GRANT EXECUTE ON FUNCTION ${FILES_CHANGED_FUNCTION} TO ${MONITOR_USER};`,
  ...definer(REPAIR_FUNCTION, "void", "plpgsql", REPAIR_BODY),
  `GRANT EXECUTE ON FUNCTION ${REPAIR_FUNCTION} TO ${MONITOR_USER};`,
  // Last: it says the whole setup ran.
  `COMMENT ON SCHEMA pgkeeper IS '${ROLES_VERSION}';`,
];

const ROLES = [REPLICATION_USER, MONITOR_USER];

/** For a new database cluster, where the roles cannot exist yet. */
export const CREATE_ROLES: readonly string[] = [
  ...ROLES.map(role => `CREATE ROLE ${role};`),
  ...ROLES_SETUP,
];

/** Creates each role a cluster lacks (in a DO block: an ordinary session, one statement). */
export const CREATE_MISSING_ROLES = `DO 'BEGIN ${ROLES.map(
  role =>
    `IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ''${role}'') THEN CREATE ROLE ${role}; END IF;`,
).join(" ")} END'`;

/** For psql, on a database cluster that may have the roles already (restored, upgraded). */
export const ENSURE_ROLES_PSQL: string = [`${CREATE_MISSING_ROLES};`, ...ROLES_SETUP].join("\n");

/**
 * The probe's check on a primary: true when the setup of this version ran to the end (it
 * replicates, so a primary's answer holds for its standbys once they replay it).
 */
export const ROLES_CURRENT_SQL = `obj_description(to_regnamespace('pgkeeper')::oid, 'pg_namespace') IS NOT DISTINCT FROM '${ROLES_VERSION}'`;
