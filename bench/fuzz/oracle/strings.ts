/**
 * String parameters whose check hook refuses values (guc.c's check_* functions). The oracle
 * decides the few it can read without a server (DateStyle, time zone names ICU also knows,
 * preloaded contrib libraries) and says "?" for the rest.
 */

/** Parameters with a check hook on their value; the others take any string. */
const CHECKED = new Set([
  "timezone",
  "log_timezone",
  "datestyle",
  "search_path",
  "shared_preload_libraries",
  "session_preload_libraries",
  "local_preload_libraries",
  "default_text_search_config",
  "lc_messages",
  "lc_monetary",
  "lc_numeric",
  "lc_time",
  "timezone_abbreviations",
  "default_tablespace",
  "temp_tablespaces",
  "log_destination",
  "unix_socket_group",
  "ssl_ciphers",
  "ssl_ecdh_curve",
  "debug_io_direct",
  "backtrace_functions",
  "synchronized_standby_slots",
  "io_method",
  "role",
  "session_authorization",
]);

/** Libraries shipped with PostgreSQL (contrib) that can be preloaded. */
export const CONTRIB_LIBRARIES = new Set([
  "pg_stat_statements",
  "auto_explain",
  "pg_prewarm",
  "passwordcheck",
  "auth_delay",
]);

/**
 * check_datestyle: a comma-separated list (SplitIdentifierString: blanks only around commas) of
 * key words, case-insensitive, at most one output style and one field order.
 */
function dateStyleProblem(value: string): string | undefined {
  const styles = new Set<string>();
  const orders = new Set<string>();
  for (const token of value.split(",").map(t => t.trim())) {
    if (token.startsWith('"')) return "?";
    if (token === "" || /\s/.test(token)) return "invalid list syntax";
    const t = token.toUpperCase();
    if (["ISO", "SQL", "POSTGRES", "GERMAN"].includes(t)) styles.add(t);
    else if (["YMD", "DMY", "EURO", "EUROPEAN", "MDY", "US", "NONEURO", "NONEUROPEAN"].includes(t))
      orders.add(t === "EURO" || t === "EUROPEAN" ? "DMY" : t.startsWith("NONEURO") ? "MDY" : t);
    else if (t === "DEFAULT") return "?";
    else return `unrecognized DateStyle key word ${token}`;
  }
  if (styles.size > 1) return "conflicting DateStyle output styles";
  if (orders.size > 1) return "conflicting DateStyle field orders";
  return undefined;
}

/** A time zone ICU knows is one PostgreSQL's tz database has; any other cannot be told here. */
function timeZoneProblem(value: string): string | undefined {
  // Offsets and POSIX rules ("+01:00", "EST5EDT") are read differently by ICU and PostgreSQL.
  if (!/^[A-Za-z][A-Za-z_]*(\/[A-Za-z][A-Za-z_-]*)*$/.test(value)) return "?";
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return undefined;
  } catch {
    return "?";
  }
}

/** Elements of a list parameter: comma-separated, blanks around, optionally double-quoted. */
export const listElements = (value: string): string[] =>
  value
    .split(",")
    .map(e => e.trim().replace(/^"(.*)"$/, "$1"))
    .filter(e => e !== "");

function preloadProblem(value: string): string | undefined {
  return listElements(value).every(l => CONTRIB_LIBRARIES.has(l)) ? undefined : "?";
}

/** Why PostgreSQL refuses a string value, "?" when it cannot be told here, or undefined. */
export function stringProblem(name: string, value: string): string | undefined {
  const key = name.toLowerCase();
  if (key === "datestyle") return dateStyleProblem(value);
  if (key === "timezone" || key === "log_timezone") return timeZoneProblem(value);
  if (key === "shared_preload_libraries") return preloadProblem(value);
  return CHECKED.has(key) ? "?" : undefined;
}
