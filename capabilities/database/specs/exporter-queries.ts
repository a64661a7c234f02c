/**
 * PostgreSQL's metrics as pgkeeper names them (ADR 0043): the queries the exporter sidecar runs
 * with its default metrics off, one set per major, so a dashboard reads the same names on 15, 17
 * and 18. Rendered in postgres_exporter's queries file format (`--extend.query-path`); JSON is
 * YAML, so the file is JSON. Every query runs as pgkeeper_monitor (pg_monitor) on a primary or a
 * standby, and the postgres tier runs each against each major's server.
 */

export type ColumnUsage = "LABEL" | "GAUGE" | "COUNTER";

export interface ExporterQuery {
  query: string;
  /** Each column, in the query's order: a label or a value, and what it means. */
  columns: [name: string, usage: ColumnUsage, description: string][];
}

/** The WAL position this server has: written on a primary, replayed on a standby. */
const WAL_POSITION =
  "CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END";

/** 17 moved the checkpoint counters from pg_stat_bgwriter to pg_stat_checkpointer. */
const checkpointsQuery = (major: number): string =>
  major >= 17
    ? "SELECT num_timed AS timed, num_requested AS requested, write_time / 1000 AS write_seconds, sync_time / 1000 AS sync_seconds FROM pg_stat_checkpointer"
    : "SELECT checkpoints_timed AS timed, checkpoints_req AS requested, checkpoint_write_time / 1000 AS write_seconds, checkpoint_sync_time / 1000 AS sync_seconds FROM pg_stat_bgwriter";

/** The queries of `major` ("15", "17", "18"), by name: metric `pg_<name>_<column>`. */
export function exporterQueries(major: string): Record<string, ExporterQuery> {
  return {
    database: {
      query:
        "SELECT d.datname, s.xact_commit, s.xact_rollback, s.deadlocks, s.temp_bytes, pg_database_size(d.oid) AS size_bytes, age(d.datfrozenxid) AS xid_age FROM pg_database d JOIN pg_stat_database s ON s.datid = d.oid WHERE d.datallowconn",
      columns: [
        ["datname", "LABEL", "The database."],
        ["xact_commit", "COUNTER", "Transactions committed."],
        ["xact_rollback", "COUNTER", "Transactions rolled back."],
        ["deadlocks", "COUNTER", "Deadlocks detected."],
        ["temp_bytes", "COUNTER", "Bytes written to temporary files by queries."],
        ["size_bytes", "GAUGE", "The database's size on disk."],
        [
          "xid_age",
          "GAUGE",
          "Transactions since the database's oldest unfrozen XID: wraparound nears at 2^31.",
        ],
      ],
    },
    connections: {
      query:
        "SELECT coalesce(state, 'unknown') AS state, count(*) AS count FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1",
      columns: [
        ["state", "LABEL", "active, idle, idle in transaction, ..."],
        ["count", "GAUGE", "Client connections in this state."],
      ],
    },
    settings: {
      query: "SELECT current_setting('max_connections')::int AS max_connections",
      columns: [["max_connections", "GAUGE", "max_connections: the ceiling of connections."]],
    },
    locks: {
      query: "SELECT mode, count(*) AS count FROM pg_locks GROUP BY mode",
      columns: [
        ["mode", "LABEL", "The lock mode."],
        ["count", "GAUGE", "Locks held or awaited in this mode."],
      ],
    },
    oldest_transaction: {
      query:
        "SELECT coalesce(max(extract(epoch FROM clock_timestamp() - xact_start)), 0) AS age_seconds FROM pg_stat_activity WHERE backend_type = 'client backend' AND xact_start IS NOT NULL",
      columns: [["age_seconds", "GAUGE", "Age of the oldest open client transaction."]],
    },
    wal: {
      query: `SELECT pg_wal_lsn_diff(${WAL_POSITION}, '0/0') AS position_bytes, pg_is_in_recovery()::int AS in_recovery, coalesce((SELECT (status = 'streaming')::int FROM pg_stat_wal_receiver), 0) AS receiver_streaming`,
      columns: [
        [
          "position_bytes",
          "COUNTER",
          "WAL written (primary) or replayed (standby) since the cluster began: its rate is WAL generated.",
        ],
        ["in_recovery", "GAUGE", "1 on a standby, 0 on a primary."],
        [
          "receiver_streaming",
          "GAUGE",
          "1 while this standby's WAL receiver streams from the primary (0 on a primary).",
        ],
      ],
    },
    replication: {
      query: `SELECT application_name AS standby, coalesce(pg_wal_lsn_diff(${WAL_POSITION}, replay_lsn), 0) AS lag_bytes, coalesce(extract(epoch FROM replay_lag), 0) AS lag_seconds FROM pg_stat_replication`,
      columns: [
        ["standby", "LABEL", "The standby (its instance name)."],
        ["lag_bytes", "GAUGE", "WAL the standby has not replayed yet."],
        ["lag_seconds", "GAUGE", "How long the standby took, last, to replay what was written."],
      ],
    },
    slots: {
      query: `SELECT slot_name AS slot, slot_type AS type, active::int AS active, coalesce(pg_wal_lsn_diff(${WAL_POSITION}, restart_lsn), 0) AS retained_bytes FROM pg_replication_slots`,
      columns: [
        ["slot", "LABEL", "The replication slot."],
        ["type", "LABEL", "physical or logical."],
        ["active", "GAUGE", "1 while a client streams from it."],
        ["retained_bytes", "GAUGE", "WAL kept in pg_wal for it."],
      ],
    },
    archiver: {
      query:
        "SELECT archived_count, failed_count, coalesce(extract(epoch FROM clock_timestamp() - last_archived_time), -1) AS last_archived_age_seconds FROM pg_stat_archiver",
      columns: [
        ["archived_count", "COUNTER", "WAL segments archived."],
        ["failed_count", "COUNTER", "Failed attempts to archive a segment."],
        [
          "last_archived_age_seconds",
          "GAUGE",
          "Seconds since the last segment was archived (-1: none yet).",
        ],
      ],
    },
    checkpoints: {
      query: checkpointsQuery(Number(major)),
      columns: [
        ["timed", "COUNTER", "Checkpoints begun because checkpoint_timeout elapsed."],
        ["requested", "COUNTER", "Checkpoints requested (WAL volume, a backup, by hand)."],
        ["write_seconds", "COUNTER", "Time spent writing checkpoints' files."],
        ["sync_seconds", "COUNTER", "Time spent syncing checkpoints' files to disk."],
      ],
    },
  };
}

/** The names pgkeeper's queries take in the file (`pg_<name>`): no user query may take one. */
export const pgkeeperQueryNames = (major: string): string[] =>
  Object.keys(exporterQueries(major)).map(name => `pg_${name}`);

/**
 * The queries file of `major`, in postgres_exporter's format: pgkeeper's, then `custom` (the
 * user's, checked by custom-queries.ts).
 */
export function renderExporterQueries(major: string, custom: Record<string, unknown> = {}): string {
  const own = Object.fromEntries(
    Object.entries(exporterQueries(major)).map(([name, q]) => [
      `pg_${name}`,
      {
        query: q.query,
        master: true,
        metrics: q.columns.map(([name, usage, description]) => ({
          [name]: { usage, description },
        })),
      },
    ]),
  );
  return `${JSON.stringify({ ...own, ...custom }, null, 2)}\n`;
}
