/**
 * How PostgreSQL reads parameter values, as far as the operator needs it (pure):
 * - list parameters whose elements PostgreSQL quotes (GUC_LIST_QUOTE) must reach ALTER SYSTEM as
 *   one literal per element: given as one literal 'a,b', the whole string becomes one quoted
 *   element "a,b" — for shared_preload_libraries, a server that no longer starts;
 * - whether the value in effect (pg_settings) is the desired one, when "64MB" is shown as 8192
 *   units of 8kB and "on" may have been written "true".
 */

/**
 * The GUC_LIST_QUOTE parameters of PostgreSQL 15 (the same list pg_dump keeps in
 * variable_is_guc_list_quote()). Extensions cannot declare such parameters.
 */
const LIST_QUOTE_PARAMETERS: ReadonlySet<string> = new Set([
  "local_preload_libraries",
  "search_path",
  "session_preload_libraries",
  "shared_preload_libraries",
  "temp_tablespaces",
  "unix_socket_directories",
]);

/** Lists of SQL identifiers: unquoted elements are folded to lower case, like identifiers in SQL. */
const IDENTIFIER_LISTS: ReadonlySet<string> = new Set(["search_path", "temp_tablespaces"]);

export const isListQuoted = (name: string): boolean => LIST_QUOTE_PARAMETERS.has(name);

/**
 * The elements of a list value: comma-separated, blanks around elements ignored, double quotes
 * protect commas and case, "" inside quotes is a quote. Unquoted elements of identifier lists are
 * folded to lower case. Throws on an unterminated quote.
 */
export function splitList(name: string, value: string): string[] {
  const fold = IDENTIFIER_LISTS.has(name);
  const elements: string[] = [];
  let i = 0;
  const skipBlanks = (): void => {
    while (i < value.length && /\s/.test(value[i])) i++;
  };
  skipBlanks();
  if (i === value.length) return [];
  for (;;) {
    skipBlanks();
    let element: string;
    if (value[i] === '"') {
      const end = closingQuote(value, i);
      element = value.slice(i + 1, end).replace(/""/g, '"');
      i = end + 1;
    } else {
      const end = value.indexOf(",", i) === -1 ? value.length : value.indexOf(",", i);
      element = value.slice(i, end).trim();
      if (element === "") throw new Error(`${name}: empty element in list ${value}`);
      if (fold) element = element.toLowerCase();
      i = end;
    }
    elements.push(element);
    skipBlanks();
    if (i >= value.length) return elements;
    if (value[i] !== ",") throw new Error(`${name}: unexpected ${value[i]} in list ${value}`);
    i++;
  }
}

function closingQuote(value: string, open: number): number {
  for (let j = open + 1; j < value.length; j++) {
    if (value[j] !== '"') continue;
    if (value[j + 1] === '"') j++;
    else return j;
  }
  throw new Error(`unterminated quoted element in ${value}`);
}

/** Two values written to a configuration file mean the same (exact, or same list elements). */
export function sameFileValue(name: string, a: string, b: string): boolean {
  if (a === b) return true;
  if (!isListQuoted(name)) return false;
  try {
    return splitList(name, a).join("\u0000") === splitList(name, b).join("\u0000");
  } catch {
    return false;
  }
}

/** The pg_settings columns that say how to read `setting`. */
export interface SettingRow {
  name: string;
  setting: string;
  unit: string | null;
  vartype: string; // bool, enum, integer, real, string
}

export const MEMORY_UNITS: Record<string, number> = {
  B: 1,
  kB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
};
export const TIME_UNITS: Record<string, number> = {
  us: 0.001,
  ms: 1,
  s: 1000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** "8kB" → { kind: memory, factor: 8192 }; undefined for no or unknown unit. */
export function unitOf(unit: string): { kind: "memory" | "time"; factor: number } | undefined {
  const m = /^(\d*)([A-Za-z]+)$/.exec(unit);
  if (!m) return undefined;
  const scale = m[1] === "" ? 1 : Number(m[1]);
  if (m[2] in MEMORY_UNITS) return { kind: "memory", factor: scale * MEMORY_UNITS[m[2]] };
  if (m[2] in TIME_UNITS) return { kind: "time", factor: scale * TIME_UNITS[m[2]] };
  return undefined;
}

/**
 * The longest numeric value read: far above any real setting (a double's shortest exact form is
 * 24 characters), and short enough that no input can make a pattern slow.
 */
export const MAX_NUMBER_LENGTH = 64;

/**
 * A number as strtol (base 0) or strtod reads it, then blanks, a unit, blanks. Blanks are C's
 * isspace in the C locale (JavaScript's \s would also skip a no-break space, which PostgreSQL
 * does not). Linear: no two parts can match the same characters (an earlier `\d+\.?\d*`, and
 * blanks on both sides of an empty unit, backtracked quadratically on a long value that fails).
 */
const NUMBER_WITH_UNIT =
  /^[ \t\n\v\f\r]*([+-]?(?:0[xX][0-9A-Fa-f]+|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?))(?:[ \t\n\v\f\r]*([A-Za-z]+))?[ \t\n\v\f\r]*$/;

/**
 * A numeric value's number and unit ("" for none), or undefined when it is not one, or longer
 * than MAX_NUMBER_LENGTH.
 */
export function numberWithUnit(value: string): { number: string; unit: string } | undefined {
  if (value.length > MAX_NUMBER_LENGTH) return undefined;
  const m = NUMBER_WITH_UNIT.exec(value);
  return m ? { number: m[1], unit: m[2] ?? "" } : undefined;
}

/** A desired numeric value expressed in the unit pg_settings uses, or undefined if unreadable. */
export function toSettingUnit(desired: string, unit: string | null): number | undefined {
  const read = numberWithUnit(desired);
  if (!read) return undefined;
  const n = Number(read.number);
  if (!Number.isFinite(n)) return undefined;
  if (read.unit === "") return n;
  const from = unitOf(read.unit);
  const to = unit ? unitOf(unit) : undefined;
  if (!from || !to || from.kind !== to.kind) return undefined;
  return (n * from.factor) / to.factor;
}

const TRUE_WORDS = ["true", "yes", "on", "1"];
const FALSE_WORDS = ["false", "no", "off", "0"];

/**
 * PostgreSQL's boolean input (parse_bool): any unambiguous prefix of true/false/yes/no, on/off,
 * 1/0, in any case, and nothing around it (no blanks are skipped).
 */
export function parseBool(value: string): boolean | undefined {
  const v = value.toLowerCase();
  if (v === "" || v === "o") return undefined; // "o" could be on or off
  if (TRUE_WORDS.some(w => w.startsWith(v))) return true;
  if (FALSE_WORDS.some(w => w.startsWith(v))) return false;
  return undefined;
}

/**
 * Whether the value in effect (a pg_settings row) is `desired`. Conservative: an alias
 * PostgreSQL would accept but this does not know (an enum's hidden synonyms, a time zone
 * abbreviation) reads as "differs", which reports a parameter as not applied rather than hide one.
 */
export function settingMatches(row: SettingRow, desired: string): boolean {
  switch (row.vartype) {
    case "bool":
      return parseBool(desired) !== undefined && parseBool(desired) === parseBool(row.setting);
    case "enum":
      return desired.trim().toLowerCase() === row.setting.toLowerCase();
    case "integer": {
      const n = toSettingUnit(desired, row.unit);
      return n !== undefined && Math.round(n) === Number(row.setting);
    }
    case "real": {
      const n = toSettingUnit(desired, row.unit);
      const s = Number(row.setting);
      return n !== undefined && Math.abs(n - s) <= 1e-6 * Math.max(1, Math.abs(s));
    }
    default:
      return sameFileValue(row.name, desired, row.setting);
  }
}
