/**
 * spec.postgresql.parameters judged as PostgreSQL (ALTER SYSTEM, ADR 0002) and the CRD would:
 * names from the catalog of the Database's major, values by guc.ts, operator-owned names from
 * the CRD's description, and the product's own limits (empty values, length, case duplicates,
 * full_page_writes) marked as such.
 */
import { lookup } from "./catalog";
import { judgeExtensionParameter, preloaded } from "./extensions";
import { listElements, stringProblem } from "./strings";
import { enumAccepts, parseBoolean, parseInt32, parseReal, Read } from "./guc";
import { isRecord, Judge } from "./judge";
import type { ParameterEntry } from "../../../capabilities/database/api/parameter-catalog/types";

const FIELD = "spec.postgresql.parameters";

/** From the CRD's description of postgresql.parameters ("managed by pgkeeper"). */
const OWNED = new Set([
  "listen_addresses",
  "port",
  "unix_socket_directories",
  "data_directory",
  "hba_file",
  "ident_file",
  "config_file",
  "hot_standby",
  "primary_conninfo",
  "primary_slot_name",
  "restore_command",
  "recovery_target",
  "recovery_target_lsn",
  "recovery_target_name",
  "recovery_target_time",
  "recovery_target_xid",
  "recovery_target_timeline",
  "promote_trigger_file",
  "archive_mode",
  "archive_command",
  "wal_log_hints",
  "max_wal_senders",
  "max_replication_slots",
  "synchronous_standby_names",
  "synchronous_commit",
  "cluster_name",
  "ssl",
  "ssl_cert_file",
  "ssl_key_file",
  "ssl_ca_file",
]);

/** From the CRD's rule on postgresql.parameters ("cannot be set", ADR 0028). */
const BLOCKED = new Set([
  "archive_library",
  "archive_cleanup_command",
  "recovery_end_command",
  "ssl_passphrase_command",
  "ssl_passphrase_command_supports_reload",
  "session_preload_libraries",
  "local_preload_libraries",
  "dynamic_library_path",
  "jit_provider",
  "allow_system_table_mods",
  "ignore_system_indexes",
  "ignore_checksum_failure",
  "ignore_invalid_pages",
  "zero_damaged_pages",
  "fsync",
  "data_sync_retry",
  "restart_after_crash",
  "recovery_target_action",
  "recovery_target_inclusive",
  "recovery_min_apply_delay",
  "synchronized_standby_slots",
  "ssl_min_protocol_version",
  "ssl_max_protocol_version",
  "ssl_ciphers",
  "ssl_prefer_server_ciphers",
  "ssl_crl_file",
  "ssl_crl_dir",
  "ssl_dh_params_file",
  "krb_server_keyfile",
  "external_pid_file",
  "unix_socket_group",
  "unix_socket_permissions",
  "logging_collector",
  "log_destination",
  "log_directory",
  "log_filename",
  "log_file_mode",
  "log_rotation_age",
  "log_rotation_size",
  "log_truncate_on_rotation",
  "syslog_facility",
  "syslog_ident",
  "syslog_sequence_numbers",
  "syslog_split_messages",
  "event_source",
  "bonjour",
  "bonjour_name",
  "stats_temp_directory",
]);

/** What shared_preload_libraries may name (ADR 0028). */
const PRELOADABLE = new Set(["pg_stat_statements", "auto_explain", "pg_prewarm"]);

/** PostgreSQL's valid_custom_variable_name: identifiers ($ after the first, bytes ≥ 0x80 too). */
const CUSTOM_NAME =
  /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*(\.[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*)+$/;

function inRange(entry: ParameterEntry, read: Read): string | undefined {
  if (!read.ok) return read.why;
  const { value } = read;
  if (
    (entry.min !== undefined && value < entry.min) ||
    (entry.max !== undefined && value > entry.max) ||
    !Number.isFinite(value)
  ) {
    return `${value} is outside ${entry.min}..${entry.max}${entry.unit ? ` ${entry.unit}` : ""}`;
  }
  return undefined;
}

/** Why PostgreSQL refuses `value` for `entry`, "?" when it cannot be told, or undefined. */
function valueProblem(name: string, entry: ParameterEntry, value: string): string | undefined {
  switch (entry.type) {
    case "bool":
      return parseBoolean(value) === undefined ? "not a boolean" : undefined;
    case "integer":
      return inRange(entry, parseInt32(value, entry.unit));
    case "real":
      return inRange(entry, parseReal(value, entry.unit));
    case "enum":
      return enumAccepts(entry.values ?? [], value)
        ? undefined
        : `not one of ${entry.values?.join(", ")}`;
    default:
      return stringProblem(name, value);
  }
}

function judgeValue(j: Judge, field: string, value: string): boolean {
  if (value.trim() === "") {
    j.bad(field, "empty value", "product");
    return false;
  }
  if (value.length > 4096) {
    j.bad(field, "longer than 4096", "product");
    return false;
  }
  // eslint-disable-next-line no-control-regex -- ALTER SYSTEM refuses newlines; the product all controls
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    j.bad(field, "control characters", /[\n\r]/.test(value) ? "postgres" : "product");
    return false;
  }
  return true;
}

function judgeOne(
  j: Judge,
  major: string,
  [name, value]: [string, string],
  preload: string[],
): void {
  const field = `${FIELD}[${name}]`;
  // The CRD's rule compares names as written; PostgreSQL folds them, and so does the webhook.
  if (OWNED.has(name)) return j.bad(field, "operator-owned", "crd");
  if (OWNED.has(name.toLowerCase())) return j.bad(field, "operator-owned (case folded)", "product");
  if (BLOCKED.has(name)) return j.bad(field, "blocked", "crd");
  if (BLOCKED.has(name.toLowerCase())) return j.bad(field, "blocked (case folded)", "product");
  if (!judgeValue(j, field, value)) return;
  if (
    name.toLowerCase() === "shared_preload_libraries" &&
    !listElements(value).every(l => PRELOADABLE.has(l))
  )
    return j.bad(field, "a library outside pgkeeper's set", "product");
  if (name.includes(".")) {
    if (!CUSTOM_NAME.test(name))
      return j.bad(field, "not a valid custom parameter name", "postgres");
    if (name.length > 100) return j.bad(field, "name longer than 100", "product");
    return judgeExtensionParameter(j, field, [name, value], preload);
  }
  // No built-in parameter of any major has a name that is not an identifier.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    return j.bad(field, `not a PostgreSQL ${major} parameter`, "postgres");
  }
  const found = lookup(major, name);
  if (found.kind === "undecidable") return j.unsure(field, found.why);
  if (found.kind === "unknown-name")
    return j.bad(field, `not a PostgreSQL ${major} parameter`, "postgres");
  const { entry } = found;
  if (entry.context === "internal") return j.bad(field, "read-only (internal)", "postgres");
  // The product reads no number longer than 64 characters (issue 28: a bounded input before any
  // pattern), though strtol would take any number of leading zeros.
  if ((entry.type === "integer" || entry.type === "real") && value.length > 64)
    return j.bad(field, "a number longer than 64 characters", "product");
  const problem = valueProblem(name, entry, value);
  if (problem === "?") return j.unsure(field, `string parameter with a check hook: ${value}`);
  if (problem) return j.bad(field, problem, "postgres");
  if (name.toLowerCase() === "full_page_writes" && parseBoolean(value) === false) {
    j.bad(field, "full_page_writes off", "product");
  }
  // The CRD's CEL refuses the exact key; the webhook any spelling.
  if (name.toLowerCase() === "wal_level" && value.toLowerCase() === "minimal") {
    j.bad(field, "wal_level minimal", name === "wal_level" ? "crd" : "product");
  }
}

/**
 * A value as Mutate stores it (README, "YAML habits": numeric or boolean values become the
 * strings meant), or undefined when it is of no type a parameter can have.
 */
function yamlReading(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "on" : "off";
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Judges the parameters map of a Database of `major` (a supported one, or undefined). */
export function judgeParameters(j: Judge, major: string | undefined, parameters: unknown): void {
  if (parameters === undefined) return;
  if (!isRecord(parameters)) return j.bad(FIELD, "not a map", "crd");
  const entries = Object.entries(parameters);
  if (entries.length > 200) return j.bad(FIELD, "more than 200 entries", "crd");
  if (Object.hasOwn(parameters, "__proto__")) j.bad(`${FIELD}[__proto__]`, "__proto__", "crd");
  const read: [string, string][] = [];
  for (const [name, value] of entries) {
    const text = yamlReading(value);
    if (text === undefined) j.bad(`${FIELD}[${name}]`, "not a string", "crd");
    else read.push([name, text]);
  }
  const preload = preloaded(read);
  const seen = new Set<string>();
  for (const entry of read) {
    const name = entry[0];
    if (seen.has(name.toLowerCase()))
      j.bad(`${FIELD}[${name}]`, "case-insensitive duplicate", "product");
    seen.add(name.toLowerCase());
    if (major !== undefined && name !== "__proto__") judgeOne(j, major, entry, preload);
  }
}
