/**
 * Parameters a hot standby must set at least as high as its primary does: PostgreSQL records the
 * primary's values in the WAL and refuses to run a standby below them (hot standby is "not
 * possible because of insufficient parameter settings"). The probe reads what each server runs
 * with (instance/); ha/hot-standby-limits.ts orders a change of them.
 */
import { MAX_WAL_SENDERS } from "./postgresql-conf";

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
