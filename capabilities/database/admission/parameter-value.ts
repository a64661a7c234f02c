/**
 * Whether PostgreSQL would accept a value for a parameter, by its own input rules (guc.c's
 * parse_bool, parse_int, parse_real and enum lookup), given the parameter's catalog entry. Pure.
 * A refusal here is a server that would not start (the bootstrap postgresql.auto.conf) or a
 * parameter change that would never apply.
 */
import type { ParameterEntry } from "../api/parameter-catalog/types";
import { parseBool } from "../lib/guc-value";

const MEMORY_UNITS: Record<string, number> = {
  B: 1,
  kB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
};
const TIME_UNITS: Record<string, number> = {
  us: 0.001,
  ms: 1,
  s: 1000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const MEMORY_HINT = "B, kB, MB, GB, TB";
const TIME_HINT = "us, ms, s, min, h, d";

/** The catalog's unit ("8kB", "min") as a kind and a factor of the base unit (bytes, ms). */
function baseUnit(unit: string): { kind: "memory" | "time"; factor: number } | undefined {
  const m = /^(\d*)([A-Za-z]+)$/.exec(unit);
  if (!m) return undefined;
  const scale = m[1] === "" ? 1 : Number(m[1]);
  if (m[2] in MEMORY_UNITS) return { kind: "memory", factor: scale * MEMORY_UNITS[m[2]] };
  if (m[2] in TIME_UNITS) return { kind: "time", factor: scale * TIME_UNITS[m[2]] };
  return undefined;
}

/** A number as strtol (base 0) or strtod reads it, then blanks, a unit, blanks. */
const NUMBER =
  /^\s*([+-]?(?:0[xX][0-9A-Fa-f]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))\s*([A-Za-z]*)\s*$/;

function readNumber(raw: string, integer: boolean): number | undefined {
  if (/^[+-]?0[xX]/.test(raw)) return parseInt(raw, 16);
  // strtol with base 0 reads a leading 0 as octal; digits 8 and 9 end the number there.
  if (integer && /^[+-]?0\d+$/.test(raw)) return /[89]/.test(raw) ? undefined : parseInt(raw, 8);
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

const shownRange = (entry: ParameterEntry): string =>
  `${entry.min} .. ${entry.max}${entry.unit ? ` (in units of ${entry.unit})` : ""}`;

/** The value in the parameter's own units, or why it cannot be read. */
function inParameterUnits(entry: ParameterEntry, value: string): number | string {
  const integer = entry.type === "integer";
  const m = NUMBER.exec(value);
  const n = m ? readNumber(m[1], integer) : undefined;
  if (!m || n === undefined) {
    const kind = integer ? "an integer" : "a number";
    return `"${value}" is not ${kind}${entry.unit ? " with an optional unit" : ""}`;
  }
  if (m[2] === "") return n;
  const target = entry.unit ? baseUnit(entry.unit) : undefined;
  if (!target) return `"${value}": this parameter takes no unit`;
  const [units, hint] =
    target.kind === "memory" ? [MEMORY_UNITS, MEMORY_HINT] : [TIME_UNITS, TIME_HINT];
  if (!(m[2] in units)) {
    return `"${value}": invalid unit ${m[2]}; valid units are ${hint} (case matters)`;
  }
  return (n * units[m[2]]) / target.factor;
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

/** Enums that accept on/off also take PostgreSQL's hidden boolean spellings (true, yes, 1…). */
function enumProblem(entry: ParameterEntry, value: string): string | undefined {
  const values = entry.values ?? [];
  const v = value.trim().toLowerCase();
  if (values.some(allowed => allowed.toLowerCase() === v)) return undefined;
  const boolish = values.includes("on") || values.includes("off");
  if (boolish && parseBool(v) !== undefined) return undefined;
  return `"${value}" is not one of ${values.join(", ")}`;
}

/** Why PostgreSQL would refuse `value` for a parameter described by `entry`, or undefined. */
export function parameterValueProblem(entry: ParameterEntry, value: string): string | undefined {
  switch (entry.type) {
    case "bool":
      return parseBool(value) === undefined ? `"${value}" is not a boolean (on or off)` : undefined;
    case "integer":
    case "real":
      return numericProblem(entry, value);
    case "enum":
      return enumProblem(entry, value);
    default:
      return undefined;
  }
}
