/**
 * The roles pgkeeper keeps in every database cluster, as the operator runs them over its own
 * session (ha/instance-sql.ts) on a primary whose setup is missing or older than this version's.
 * The statements are scripts/roles.sql's, which also says what each role may do and why: the
 * entrypoint runs the same file at bootstrap (inside bootstrap.sql or recovery.sql), so the two
 * can never differ. Each statement is on a line of its own there, comments on lines of theirs.
 */
import {
  CHECKPOINT_FUNCTION,
  FILES_CHANGED_FUNCTION,
  REPAIR_FUNCTION,
  ROLES_VERSION,
} from "./layout";
import { ROLES_SQL } from "./scripts/sql";

export { CHECKPOINT_FUNCTION, FILES_CHANGED_FUNCTION, REPAIR_FUNCTION, ROLES_VERSION };

/** roles.sql's statements, in order. */
const STATEMENTS: readonly string[] = ROLES_SQL.split("\n").filter(
  line => line.trim() !== "" && !line.startsWith("--"),
);

/** Text between roles.sql's two `$tag$`: a function's body, or a DO block's. */
function dollarQuoted(tag: string): string {
  const parts = ROLES_SQL.split(`$${tag}$`);
  if (parts.length !== 3) throw new Error(`roles.sql has no single $${tag}$ body`);
  return parts[1];
}

/**
 * Whether pg_hba.conf or a TLS file changed since the configuration was last loaded (the body of
 * FILES_CHANGED_FUNCTION). The superuser runs it as it is; the monitor, through the function.
 */
export const FILES_CHANGED_QUERY = dollarQuoted("files_changed");

/** The repair request as one statement, for the superuser on a cluster without REPAIR_FUNCTION. */
export const REPAIR_BLOCK = `DO $repair$${dollarQuoted("repair")}$repair$`;

/** Creates each role a cluster lacks (a DO block: an ordinary session, one statement). */
export const CREATE_MISSING_ROLES = `DO $create_missing_roles$${dollarQuoted("create_missing_roles")}$create_missing_roles$`;

/** Everything but creating the roles: safe to run again, on a new cluster or an existing one. */
export const ROLES_SETUP: readonly string[] = STATEMENTS.filter(
  statement => statement !== `${CREATE_MISSING_ROLES};`,
);

/** The whole of roles.sql: the roles created where missing, then set up. */
export const CREATE_ROLES: readonly string[] = [`${CREATE_MISSING_ROLES};`, ...ROLES_SETUP];

/** The same for psql, on a database cluster that may have the roles already (restored). */
export const ENSURE_ROLES_PSQL: string = CREATE_ROLES.join("\n");

/**
 * The probe's check on a primary: true when the setup of this version ran to the end (it
 * replicates, so a primary's answer holds for its standbys once they replay it).
 */
export const ROLES_CURRENT_SQL = `obj_description(to_regnamespace('pgkeeper')::oid, 'pg_namespace') IS NOT DISTINCT FROM '${ROLES_VERSION}'`;
