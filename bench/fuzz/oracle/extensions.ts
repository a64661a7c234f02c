/**
 * Parameters of extensions ("pg_stat_statements.max"). PostgreSQL knows them only once the
 * extension is loaded (ADR 0002: ALTER SYSTEM refuses them otherwise), so the oracle judges one
 * only when the same spec preloads its library and the oracle knows the parameter (from the
 * contrib modules' DefineCustom*Variable calls); anything else is undecidable.
 */
import { enumAccepts, parseBoolean, parseInt32 } from "./guc";
import { Judge } from "./judge";
import { CONTRIB_LIBRARIES, listElements } from "./strings";

type Known =
  | { type: "bool" }
  | { type: "enum"; values: string[] }
  | { type: "integer"; min: number; max: number; unit?: string };

const KNOWN: Record<string, Known> = {
  "pg_stat_statements.max": { type: "integer", min: 100, max: 1073741823 },
  "pg_stat_statements.track": { type: "enum", values: ["none", "top", "all"] },
  "pg_stat_statements.track_utility": { type: "bool" },
  "pg_stat_statements.track_planning": { type: "bool" },
  "pg_stat_statements.save": { type: "bool" },
  "auto_explain.log_min_duration": { type: "integer", min: -1, max: 2147483647, unit: "ms" },
  "auto_explain.log_analyze": { type: "bool" },
};

/** The libraries `shared_preload_libraries` (any case) names, from the spec's own parameters. */
export function preloaded(parameters: [string, string][]): string[] {
  const entry = parameters.find(([n]) => n.toLowerCase() === "shared_preload_libraries");
  return entry ? listElements(entry[1]) : [];
}

function problem(known: Known, value: string): string | undefined {
  switch (known.type) {
    case "bool":
      return parseBoolean(value) === undefined ? "not a boolean" : undefined;
    case "enum":
      return enumAccepts(known.values, value) ? undefined : `not one of ${known.values.join(", ")}`;
    default: {
      const read = parseInt32(value, known.unit);
      if (!read.ok) return read.why;
      return read.value < known.min || read.value > known.max
        ? `outside ${known.min}..${known.max}`
        : undefined;
    }
  }
}

export function judgeExtensionParameter(
  j: Judge,
  field: string,
  [name, value]: [string, string],
  preload: string[],
): void {
  const library = name.slice(0, name.indexOf("."));
  const known = KNOWN[name.toLowerCase()];
  if (!CONTRIB_LIBRARIES.has(library) || !preload.includes(library) || !known) {
    return j.unsure(field, `extension parameter: ${library} not preloaded, or not known here`);
  }
  const why = problem(known, value);
  if (why) j.bad(field, why, "postgres");
}
