/**
 * Whether PostgreSQL would accept a value for a parameter, by its own input rules (guc.c's
 * parse_bool, parse_int, parse_real and enum lookup), given the parameter's catalog entry. Pure.
 * A refusal here is a server that would not start (the bootstrap postgresql.auto.conf) or a
 * parameter change that would never apply.
 */
import type { ParameterEntry } from "../api/parameter-catalog/types";
import { MEMORY_UNITS, NUMBER_WITH_UNIT, parseBool, TIME_UNITS, unitOf } from "../lib/guc-value";

const MEMORY_HINT = Object.keys(MEMORY_UNITS).join(", ");
const TIME_HINT = Object.keys(TIME_UNITS).join(", ");

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
  const m = NUMBER_WITH_UNIT.exec(value);
  const n = m ? readNumber(m[1], integer) : undefined;
  if (!m || n === undefined) {
    const kind = integer ? "an integer" : "a number";
    return `"${value}" is not ${kind}${entry.unit ? " with an optional unit" : ""}`;
  }
  if (m[2] === "") return n;
  const target = entry.unit ? unitOf(entry.unit) : undefined;
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
