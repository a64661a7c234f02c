/**
 * Which names spec.postgresql.parameters may hold: one rule, used by admission (which refuses the
 * others, naming them) and by the configuration builder (which never writes them, in case a
 * Database got in while the webhook was down).
 */
import { BLOCKED_PARAMETERS, OPERATOR_OWNED_PARAMETERS } from "./database-schema";

/**
 * PostgreSQL's rule for a parameter name: an identifier, or dot-separated identifiers for
 * extension (custom) parameters such as `pg_stat_statements.max` or `a.b.c`.
 */
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const MAX_PARAMETER_NAME_LENGTH = 100;

const OWNED = new Set<string>(OPERATOR_OWNED_PARAMETERS);

/** Why `name` cannot be set by the user, or undefined when it can. Names are case-insensitive. */
export function parameterNameProblem(
  name: string,
): "invalid" | "operator-owned" | "blocked" | undefined {
  if (name.length > MAX_PARAMETER_NAME_LENGTH || !PARAMETER_NAME.test(name)) return "invalid";
  if (OWNED.has(name.toLowerCase())) return "operator-owned";
  if (Object.hasOwn(BLOCKED_PARAMETERS, name.toLowerCase())) return "blocked";
  return undefined;
}

/** Why a blocked parameter cannot be set (undefined for any other name). */
export const blockedBecause = (name: string): string | undefined =>
  Object.hasOwn(BLOCKED_PARAMETERS, name.toLowerCase())
    ? BLOCKED_PARAMETERS[name.toLowerCase()]
    : undefined;
