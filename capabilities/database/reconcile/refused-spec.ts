/**
 * What of a refused spec high availability may still use (guards.ts, "instances only"): all but
 * the parameters the rules refused. Live parameters are applied with failover's own settings
 * (primary_conninfo repoints standbys at a new primary), so they cannot simply stop; a refused
 * parameter, though, must never reach PostgreSQL.
 */
import type { DatabaseSpec } from "../api/database-schema";

/** `spec.postgresql.parameters[<name>]` in a denial's field: the parameter it refuses. */
const PARAMETER_FIELD = /^spec\.postgresql\.parameters\[(.+)\]$/;

/** The names of the parameters `denials` refuse. */
export function refusedParameters(denials: readonly { field: string }[]): Set<string> {
  return new Set(denials.flatMap(d => PARAMETER_FIELD.exec(d.field)?.slice(1, 2) ?? []));
}

/** `spec` without the parameters `denials` refuse (the same object when none is). */
export function withoutRefusedParameters(
  spec: DatabaseSpec,
  denials: readonly { field: string }[],
): DatabaseSpec {
  const refused = refusedParameters(denials);
  const parameters = spec.postgresql?.parameters;
  if (!parameters || refused.size === 0) return spec;
  const kept = Object.fromEntries(
    Object.entries(parameters).filter(([name]) => !refused.has(name)),
  );
  return { ...spec, postgresql: { ...spec.postgresql, parameters: kept } };
}
