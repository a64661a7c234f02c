/**
 * Parameters a hot standby must set at least as high as its primary does: PostgreSQL records the
 * primary's values in the WAL and refuses to run a standby below them (hot standby is "not
 * possible because of insufficient parameter settings"). A rise therefore reaches the standbys
 * before the primary, and a reduction reaches the primary first: a standby restarted with the
 * lower value before the primary would not come back.
 */
import { HOT_STANDBY_LIMITS, HOT_STANDBY_LIMIT_NAMES } from "../specs/hot-standby-parameters";

/**
 * The limits whose desired value is below the value a server runs with, sorted. `desired` holds
 * the managed parameters (names in lower case); a limit absent from it returns to PostgreSQL's
 * default. A value that is not a plain number is left to PostgreSQL (it never lowers anything
 * here: the caller falls back to the usual order).
 */
export function loweredLimits(
  running: Readonly<Record<string, number>> | undefined,
  desired: Readonly<Record<string, string>>,
): string[] {
  if (!running) return [];
  return HOT_STANDBY_LIMIT_NAMES.filter(name => {
    const now = running[name];
    const wanted = name in desired ? Number(desired[name]) : HOT_STANDBY_LIMITS[name];
    return now !== undefined && Number.isFinite(wanted) && wanted < now;
  }).sort();
}
