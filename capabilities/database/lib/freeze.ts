/**
 * Deep freezing of shared objects. The read cache hands out the very objects the watches
 * delivered; a reader that mutated one would corrupt every later read and hide its own write from
 * the status diff. Frozen, such a mutation throws where it happens (strict mode) instead.
 */

/** Freezes `value` and everything reachable from it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value as object)) deepFreeze(child);
  return value;
}

/**
 * Whether shared objects are frozen in this process: in tests (jest sets NODE_ENV=test) and in
 * `pepr dev` (development), or when PGKEEPER_FREEZE_SHARED=1. Production skips the cost.
 */
export const freezesShared = (env: Record<string, string | undefined> = process.env): boolean =>
  env.NODE_ENV === "test" || env.PEPR_MODE === "dev" || env.PGKEEPER_FREEZE_SHARED === "1";
