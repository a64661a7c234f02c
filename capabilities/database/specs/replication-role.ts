/**
 * The role standbys stream, clone and rewind as (ADR 0017): LOGIN REPLICATION, authenticated by
 * its certificate only (pg_hba.conf), with what else a standby asks of its primary and nothing
 * more: the four functions pg_rewind reads the source's files with (PostgreSQL's documented
 * minimum for a rewind without the superuser), and `pgkeeper.checkpoint()`, a SECURITY DEFINER
 * wrapper of CHECKPOINT (PostgreSQL 14 has no pg_checkpoint role to grant), which a former
 * primary runs before pg_rewind so a just-promoted primary shows its new timeline.
 *
 * One statement per line, all but CREATE ROLE idempotent: single-user mode, which the bootstrap
 * runs them in, ends a statement at a newline; the same lines repair an existing cluster.
 */
import { REPLICATION_USER } from "./layout";

const REWIND_FUNCTIONS = [
  "pg_catalog.pg_ls_dir(text, boolean, boolean)",
  "pg_catalog.pg_stat_file(text, boolean)",
  "pg_catalog.pg_read_binary_file(text)",
  "pg_catalog.pg_read_binary_file(text, bigint, bigint, boolean)",
];

/** What a standby calls on its primary before pg_rewind (in the `postgres` database). */
export const CHECKPOINT_FUNCTION = "pgkeeper.checkpoint()";

/** The grants and the checkpoint function: safe to run again. */
export const REPLICATION_SETUP: readonly string[] = [
  `ALTER ROLE ${REPLICATION_USER} LOGIN REPLICATION NOSUPERUSER;`,
  ...REWIND_FUNCTIONS.map(fn => `GRANT EXECUTE ON FUNCTION ${fn} TO ${REPLICATION_USER};`),
  "CREATE SCHEMA IF NOT EXISTS pgkeeper;",
  "REVOKE ALL ON SCHEMA pgkeeper FROM PUBLIC;",
  `GRANT USAGE ON SCHEMA pgkeeper TO ${REPLICATION_USER};`,
  `CREATE OR REPLACE FUNCTION ${CHECKPOINT_FUNCTION} RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS 'BEGIN CHECKPOINT; END';`,
  `REVOKE ALL ON FUNCTION ${CHECKPOINT_FUNCTION} FROM PUBLIC;`,
  `GRANT EXECUTE ON FUNCTION ${CHECKPOINT_FUNCTION} TO ${REPLICATION_USER};`,
];

/** For a new database cluster, where the role cannot exist yet. */
export const CREATE_REPLICATION_ROLE: readonly string[] = [
  `CREATE ROLE ${REPLICATION_USER};`,
  ...REPLICATION_SETUP,
];

/** For psql (`\gexec`) on a database cluster that may have the role already (restored, upgraded). */
export const ENSURE_REPLICATION_ROLE_PSQL: string = [
  `SELECT 'CREATE ROLE ${REPLICATION_USER}' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${REPLICATION_USER}')`,
  "\\gexec",
  ...REPLICATION_SETUP,
].join("\n");
