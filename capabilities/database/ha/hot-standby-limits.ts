/**
 * Parameters a hot standby must set at least as high as its primary does: PostgreSQL records the
 * primary's values in the WAL and refuses to run a standby below them (hot standby is "not
 * possible because of insufficient parameter settings"). A rise therefore reaches the standbys
 * before the primary, and a reduction reaches the primary first: a standby restarted with the
 * lower value before the primary would not come back.
 */
import { MAX_WAL_SENDERS } from "../specs/postgresql-conf";

/**
 * The parameters and their values when the spec leaves them unset: PostgreSQL's defaults (the
 * same in 14..18), and for max_wal_senders pgkeeper's own (operator-owned, in postgresql.conf).
 */
export const HOT_STANDBY_LIMITS: Readonly<Record<string, number>> = {
  max_connections: 100,
  max_worker_processes: 8,
  max_wal_senders: MAX_WAL_SENDERS,
  max_prepared_transactions: 0,
  max_locks_per_transaction: 64,
};

export const HOT_STANDBY_LIMIT_NAMES = Object.keys(HOT_STANDBY_LIMITS);

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
