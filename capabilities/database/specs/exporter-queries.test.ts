import { load } from "js-yaml";
import { IMAGE_VERSIONS } from "../lib/config";
import { exporterQueries, renderExporterQueries } from "./exporter-queries";

describe.each(IMAGE_VERSIONS.map(major => [major]))("the exporter's queries of %s", major => {
  const queries = exporterQueries(major);

  it("render as postgres_exporter's file: pg_<name>, the query, once per server, each column's use", () => {
    const file = load(renderExporterQueries(major)) as Record<
      string,
      { query: string; master: boolean; metrics: Record<string, { usage: string }>[] }
    >;
    expect(Object.keys(file)).toEqual(Object.keys(queries).map(name => `pg_${name}`));
    for (const [name, q] of Object.entries(queries)) {
      const rendered = file[`pg_${name}`];
      expect(rendered.query).toBe(q.query);
      expect(rendered.master).toBe(true);
      expect(rendered.metrics.map(m => Object.keys(m)[0])).toEqual(q.columns.map(c => c[0]));
    }
  });

  it("name each column they declare, and count something in each", () => {
    for (const q of Object.values(queries)) {
      for (const [column] of q.columns) expect(q.query).toMatch(new RegExp(`\\b${column}\\b`));
      expect(q.columns.some(([, usage]) => usage !== "LABEL")).toBe(true);
    }
  });

  it("cover what the issue lists", () => {
    const metrics = Object.entries(queries).flatMap(([name, q]) =>
      q.columns.filter(([, usage]) => usage !== "LABEL").map(([column]) => `pg_${name}_${column}`),
    );
    expect(metrics).toEqual(
      expect.arrayContaining([
        "pg_database_xact_commit",
        "pg_database_xact_rollback",
        "pg_connections_count",
        "pg_settings_max_connections",
        "pg_locks_count",
        "pg_database_deadlocks",
        "pg_oldest_transaction_age_seconds",
        "pg_wal_position_bytes",
        "pg_replication_lag_bytes",
        "pg_replication_lag_seconds",
        "pg_slots_retained_bytes",
        "pg_archiver_archived_count",
        "pg_archiver_failed_count",
        "pg_archiver_last_archived_age_seconds",
        "pg_database_size_bytes",
        "pg_checkpoints_timed",
        "pg_checkpoints_requested",
        "pg_checkpoints_write_seconds",
        "pg_checkpoints_sync_seconds",
        "pg_database_temp_bytes",
        "pg_database_xid_age",
      ]),
    );
  });
});

it("reads the checkpoint counters where each major keeps them", () => {
  expect(exporterQueries("15").checkpoints.query).toContain("pg_stat_bgwriter");
  expect(exporterQueries("17").checkpoints.query).toContain("pg_stat_checkpointer");
  expect(exporterQueries("18").checkpoints.query).toContain("pg_stat_checkpointer");
});
