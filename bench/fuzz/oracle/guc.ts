/**
 * PostgreSQL's reading of a parameter value, written from guc.c (parse_bool, parse_int,
 * parse_real, convert_to_base_unit, config_enum_lookup_by_name) — independently of the
 * admission code's parser:
 * - integers: strtol with base 0 (0x hex, leading-0 octal); when it stops at '.', 'e' or 'E',
 *   strtod instead; then blanks, an optional unit (at most 3 letters, case-sensitive), blanks;
 *   the value in base units is rounded with rint (half to even) and checked against the range;
 * - a unit: memory B, kB, MB, GB, TB (×1024) or time us, ms, s, min, h, d; a fractional value is
 *   first rounded to a whole number of the next smaller unit ("1.5GB" → 1536MB);
 * - reals: strtod (hex floats, inf and nan are read; nan is refused, inf fails the range);
 * - booleans: on/off, true/false, yes/no, 1/0 and unambiguous prefixes, case-insensitive, no
 *   surrounding blanks;
 * - enums: a listed value, case-insensitive, no blanks; enums listing on/off also take the
 *   hidden true/false/yes/no/1/0 (never prefixes).
 */

/** Multipliers from a unit to the smallest unit of its kind (bytes, microseconds). */
const MEMORY: [string, number][] = [
  ["TB", 1024 ** 4],
  ["GB", 1024 ** 3],
  ["MB", 1024 ** 2],
  ["kB", 1024],
  ["B", 1],
];
const TIME: [string, number][] = [
  ["d", 86_400_000_000],
  ["h", 3_600_000_000],
  ["min", 60_000_000],
  ["s", 1_000_000],
  ["ms", 1000],
  ["us", 1],
];

/** The parameter's base unit ("8kB", "ms", "min") in bytes or microseconds, with its table. */
function baseUnit(unit: string): { size: number; table: [string, number][] } | undefined {
  const m = /^(\d*)(B|kB|MB|GB|TB|us|ms|s|min|h|d)$/.exec(unit);
  if (!m) return undefined;
  const scale = m[1] === "" ? 1 : Number(m[1]);
  const table = MEMORY.some(([u]) => u === m[2]) ? MEMORY : TIME;
  const size = (table.find(([u]) => u === m[2]) as [string, number])[1] * scale;
  return { size, table };
}

/** C's isspace in the C locale. */
const isSpace = (c: string | undefined): boolean => c !== undefined && " \t\n\v\f\r".includes(c);

/** C's rint: round half to even. */
export function rint(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

interface Scan {
  value: number;
  rest: string;
}

/** strtol(s, &end, 0) on a string: sign, 0x hex, leading-0 octal or decimal digits. */
function strtol(s: string): { value: number; rest: string; consumed: boolean } {
  const m = /^[ \t\n\v\f\r]*([+-]?)(0[xX][0-9A-Fa-f]+|0[0-7]*|[1-9][0-9]*)/.exec(s);
  if (!m) return { value: 0, rest: s, consumed: false };
  const body = m[2];
  const magnitude = /^0[xX]/.test(body)
    ? parseInt(body.slice(2), 16)
    : body.length > 1 && body[0] === "0"
      ? parseInt(body, 8)
      : Number(body);
  return {
    value: m[1] === "-" ? -magnitude : magnitude,
    rest: s.slice(m[0].length),
    consumed: true,
  };
}

/** strtod: decimal or hex floats, inf/infinity, nan. */
function strtod(s: string): { value: number; rest: string; consumed: boolean } {
  const dec = /^[ \t\n\v\f\r]*([+-]?)((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)/.exec(s);
  const hex = /^[ \t\n\v\f\r]*([+-]?)0[xX]([0-9A-Fa-f]*)\.?([0-9A-Fa-f]*)([pP][+-]?\d+)?/.exec(s);
  const special = /^[ \t\n\v\f\r]*([+-]?)(infinity|inf|nan)/i.exec(s);
  if (hex && (hex[2] !== "" || hex[3] !== "")) {
    const mantissa = parseInt(`${hex[2]}${hex[3]}` || "0", 16) / 16 ** hex[3].length;
    const exp = hex[4] ? Number(hex[4].slice(1)) : 0;
    const v = mantissa * 2 ** exp;
    return { value: hex[1] === "-" ? -v : v, rest: s.slice(hex[0].length), consumed: true };
  }
  if (special) {
    const v = special[2].toLowerCase() === "nan" ? NaN : Infinity;
    return { value: special[1] === "-" ? -v : v, rest: s.slice(special[0].length), consumed: true };
  }
  if (!dec) return { value: 0, rest: s, consumed: false };
  return { value: Number(`${dec[1]}${dec[2]}`), rest: s.slice(dec[0].length), consumed: true };
}

/** Blanks, then a unit of at most 3 characters, then blanks and the end; or just the end. */
function readUnit(rest: string): { unit: string } | undefined {
  let i = 0;
  while (isSpace(rest[i])) i++;
  let unit = "";
  while (i < rest.length && !isSpace(rest[i]) && unit.length < 3) unit += rest[i++];
  while (isSpace(rest[i])) i++;
  return i === rest.length ? { unit } : undefined;
}

/** convert_to_base_unit: the value in the parameter's unit, or undefined for a unit it refuses. */
function convert(value: number, unit: string, paramUnit: string): number | undefined {
  const base = baseUnit(paramUnit);
  if (!base) return undefined;
  const i = base.table.findIndex(([u]) => u === unit);
  if (i < 0) return undefined;
  let inSmallest = value * base.table[i][1];
  const next = base.table[i + 1];
  if (next) inSmallest = rint(inSmallest / next[1]) * next[1];
  return inSmallest / base.size;
}

export type Read = { ok: true; value: number } | { ok: false; why: string };

function withUnit(scan: Scan, unit: string | undefined): Read {
  const u = readUnit(scan.rest);
  if (!u) return { ok: false, why: "garbage after the number" };
  if (u.unit === "") return { ok: true, value: scan.value };
  if (!unit) return { ok: false, why: "this parameter takes no unit" };
  const v = convert(scan.value, u.unit, unit);
  return v === undefined ? { ok: false, why: `invalid unit ${u.unit}` } : { ok: true, value: v };
}

/** parse_int: the rounded value in the parameter's unit, before the range check. */
export function parseInt32(text: string, unit?: string): Read {
  let scan = strtol(text);
  if (scan.rest[0] === "." || /^[eE]/.test(scan.rest) || !Number.isSafeInteger(scan.value)) {
    scan = strtod(text);
  }
  if (!scan.consumed) return { ok: false, why: "not a number" };
  if (Number.isNaN(scan.value)) return { ok: false, why: "NaN" };
  // strtod's ERANGE: an overflow to infinity from digits (not the word inf) is refused outright.
  if (!Number.isFinite(scan.value)) return { ok: false, why: "out of range" };
  const read = withUnit(scan, unit);
  if (!read.ok) return read;
  const v = rint(read.value);
  return v > 2147483647 || v < -2147483648
    ? { ok: false, why: "exceeds integer range" }
    : { ok: true, value: v };
}

/** parse_real: the value in the parameter's unit, before the range check. */
export function parseReal(text: string, unit?: string): Read {
  const scan = strtod(text);
  if (!scan.consumed) return { ok: false, why: "not a number" };
  if (Number.isNaN(scan.value)) return { ok: false, why: "NaN" };
  return withUnit(scan, unit);
}

const BOOL_WORDS = ["true", "false", "yes", "no"];

/** parse_bool: true/false/yes/no and prefixes, on/off (not "o"), 1/0; no blanks. */
export function parseBoolean(text: string): boolean | undefined {
  const v = text.toLowerCase();
  if (v === "on" || v === "1") return true;
  if (v === "off" || v === "of" || v === "0") return false;
  const word = BOOL_WORDS.find(w => v.length > 0 && w.startsWith(v));
  if (word === undefined) return undefined;
  return word === "true" || word === "yes";
}

/** config_enum_lookup_by_name, with the hidden boolean spellings of on/off enums. */
export function enumAccepts(values: readonly string[], text: string): boolean {
  const v = text.toLowerCase();
  if (values.some(x => x.toLowerCase() === v)) return true;
  const boolish = values.includes("on") && values.includes("off");
  return boolish && ["true", "false", "yes", "no", "1", "0"].includes(v);
}
