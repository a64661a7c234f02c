/**
 * The exporter's queries (specs/exporter-queries.ts, ADR 0043) against the servers pgkeeper
 * ships, one per major with an image: each runs as a pg_monitor role, never the superuser, and
 * answers with the columns it declares, in order, so the metric names hold on every major. On a
 * primary (the standby's branch of a CASE is never evaluated there; the e2e scrape covers it).
 */
import { IMAGE_VERSIONS } from "../../capabilities/database/lib/config";
import { exporterQueries } from "../../capabilities/database/specs/exporter-queries";
import { ImageServer } from "./harness/image-server";

jest.setTimeout(120_000);

describe.each(IMAGE_VERSIONS.map(major => [major]))("PostgreSQL %s", major => {
  let server: ImageServer;
  beforeAll(async () => {
    server = await ImageServer.start(major, `exporter-${major}`);
    server.server.sql("CREATE ROLE exporter_probe; GRANT pg_monitor TO exporter_probe");
  });
  afterAll(() => server?.stop());

  /** The last line `sql` prints, as pg_monitor (SET ROLE: its privileges, not the superuser's). */
  const asMonitor = (sql: string): string =>
    server.server.sql(`SET ROLE exporter_probe; ${sql}`).split("\n").at(-1)!;
  /** The query's columns, in order, whether it has rows or not (a temporary view's). */
  const columnsOf = (query: string): string[] =>
    asMonitor(
      `CREATE TEMP VIEW answer AS ${query}; SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'answer'::regclass AND attnum > 0`,
    ).split(",");
  const firstRow = (query: string): Record<string, unknown> =>
    JSON.parse(asMonitor(`SELECT row_to_json(q) FROM (${query}) AS q LIMIT 1`)) as Record<
      string,
      unknown
    >;

  it.each(Object.entries(exporterQueries(major)))("%s", (_, q) => {
    expect(columnsOf(q.query)).toEqual(q.columns.map(([column]) => column));
  });

  it("says what a primary at rest has", () => {
    const queries = exporterQueries(major);
    expect(firstRow(queries.wal.query)).toMatchObject({ in_recovery: 0 });
    expect(firstRow(queries.settings.query)).toEqual({ max_connections: 100 });
    expect(Number(firstRow(queries.wal.query).position_bytes)).toBeGreaterThan(0);
    expect(firstRow(queries.archiver.query)).toMatchObject({ last_archived_age_seconds: -1 });
  });
});
