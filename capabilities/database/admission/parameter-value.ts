/**
 * Whether PostgreSQL would accept a value for a parameter, by its own input rules (guc.c's
 * parse_bool, parse_int, parse_real and enum lookup), given the parameter's catalog entry. Pure.
 * A refusal here is a server that would not start (the bootstrap postgresql.auto.conf) or a
 * parameter change that would never apply.
 */
import type { ParameterEntry } from "../api/parameter-catalog/types";
import {
  MAX_NUMBER_LENGTH,
  MEMORY_UNITS,
  numberWithUnit,
  parseBool,
  TIME_UNITS,
  unitOf,
} from "../lib/guc-value";

const MEMORY_HINT = Object.keys(MEMORY_UNITS).join(", ");
const TIME_HINT = Object.keys(TIME_UNITS).join(", ");

function readNumber(raw: string, integer: boolean): number | undefined {
  if (/^[+-]?0[xX]/.test(raw)) return parseInt(raw, 16);
  // parse_int: strtol with base 0 reads a leading 0 as octal, up to the first digit that is not
  // one. Only a '.', 'e' or 'E' there hands the whole value to strtod (decimal); an 8 or 9 there
  // is left over, and no unit starts with a digit: refused ("08.5", "09").
  const octal = integer ? /^[+-]?0([0-7]*)(.?)/.exec(raw) : null;
  if (octal && octal[0].length > 1 && !/[.eE]/.test(octal[2])) {
    return octal[2] === "" ? parseInt(raw, 8) : undefined;
  }
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

const shownRange = (entry: ParameterEntry): string =>
  `${entry.min} .. ${entry.max}${entry.unit ? ` (in units of ${entry.unit})` : ""}`;

/** The value in the parameter's own units, or why it cannot be read. */
function inParameterUnits(entry: ParameterEntry, value: string): number | string {
  const integer = entry.type === "integer";
  if (value.length > MAX_NUMBER_LENGTH)
    return `a value of ${value.length} characters is not a number (at most ${MAX_NUMBER_LENGTH})`;
  const read = numberWithUnit(value);
  const n = read ? readNumber(read.number, integer) : undefined;
  if (!read || n === undefined) {
    const kind = integer ? "an integer" : "a number";
    return `"${value}" is not ${kind}${entry.unit ? " with an optional unit" : ""}`;
  }
  if (read.unit === "") return n;
  const target = entry.unit ? unitOf(entry.unit) : undefined;
  if (!target) return `"${value}": this parameter takes no unit`;
  const [units, hint] =
    target.kind === "memory" ? [MEMORY_UNITS, MEMORY_HINT] : [TIME_UNITS, TIME_HINT];
  if (!(read.unit in units)) {
    return `"${value}": invalid unit ${read.unit}; valid units are ${hint} (case matters)`;
  }
  return (n * units[read.unit]) / target.factor;
}

function numericProblem(entry: ParameterEntry, value: string): string | undefined {
  const read = inParameterUnits(entry, value);
  if (typeof read === "string") return read;
  // PostgreSQL rounds an integer parameter's value (a fraction, or a unit below its own).
  const n = entry.type === "integer" ? Math.round(read) : read;
  const below = entry.min !== undefined && n < entry.min;
  const above = entry.max !== undefined && n > entry.max;
  if (!Number.isFinite(n) || below || above) {
    return `"${value}" is outside the valid range ${shownRange(entry)}`;
  }
  return undefined;
}

/**
 * An enum takes its names whole, in any case, nothing around them (config_enum_lookup_by_name);
 * one that takes on/off also has the hidden whole words true, false, yes, no, 1 and 0 (its
 * table's hidden entries), but not parse_bool's prefixes: "t" is no huge_pages value.
 */
const HIDDEN_BOOLEAN_WORDS = ["true", "false", "yes", "no", "1", "0"];

function enumProblem(entry: ParameterEntry, value: string): string | undefined {
  const values = entry.values ?? [];
  const v = value.toLowerCase();
  if (values.some(allowed => allowed.toLowerCase() === v)) return undefined;
  const boolish = values.includes("on") || values.includes("off");
  if (boolish && HIDDEN_BOOLEAN_WORDS.includes(v)) return undefined;
  return `"${value}" is not one of ${values.join(", ")}`;
}

const DATE_STYLES = ["iso", "sql", "postgres", "german"];
/** Input orders by their synonyms. */
const DATE_ORDERS: Record<string, string> = {
  ymd: "ymd",
  dmy: "dmy",
  euro: "dmy",
  european: "dmy",
  mdy: "mdy",
  us: "mdy",
  noneuro: "mdy",
  noneuropean: "mdy",
};

/**
 * DateStyle (check_datestyle): a comma-separated list of an output style and an input order
 * (or DEFAULT), at most one of each. A word it does not know stops the server at start.
 */
function dateStyleProblem(value: string): string | undefined {
  const words = value.split(",").map(w => w.trim().toLowerCase());
  const styles = words.filter(w => DATE_STYLES.includes(w));
  const orders = words.filter(w => Object.hasOwn(DATE_ORDERS, w));
  const unknown = words.filter(w => w !== "default" && !styles.includes(w) && !orders.includes(w));
  if (unknown.length > 0)
    return `"${value}": ${JSON.stringify(unknown[0])} is no DateStyle word; use ISO, SQL, Postgres or German, and DMY, MDY or YMD`;
  if (new Set(styles).size > 1 || new Set(orders.map(o => DATE_ORDERS[o])).size > 1)
    return `"${value}" names conflicting date styles or orders`;
  return undefined;
}

/** String parameters whose value PostgreSQL checks, by lower-case name. */
const STRING_CHECKS: Record<string, (value: string) => string | undefined> = {
  datestyle: dateStyleProblem,
};

/** Why PostgreSQL would refuse `value` for a parameter described by `entry`, or undefined. */
export function parameterValueProblem(
  entry: ParameterEntry,
  value: string,
  name = "",
): string | undefined {
  switch (entry.type) {
    case "bool":
      return parseBool(value) === undefined ? `"${value}" is not a boolean (on or off)` : undefined;
    case "integer":
    case "real":
      return numericProblem(entry, value);
    case "enum":
      return enumProblem(entry, value);
    default:
      return STRING_CHECKS[name.toLowerCase()]?.(value);
  }
}
