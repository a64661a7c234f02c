/**
 * The parameter catalog against a real PostgreSQL 15: pg15.json is what this server's pg_settings
 * says (regenerate with hack/parameter-catalog/generate.ts when it drifts), and admission's
 * reading of values agrees with the server's own, case by case: ALTER SYSTEM checks a value the
 * way the server will read it at start, for every context, without applying it.
 */
import pg15 from "../../capabilities/database/api/parameter-catalog/pg15.json";
import { parameterEntry } from "../../capabilities/database/api/parameter-catalog";
import { parameterValueProblem } from "../../capabilities/database/admission/parameter-value";
import { CATALOG_QUERY, catalogFromRows } from "../../hack/parameter-catalog/query";
import { Cluster } from "./harness/cluster";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

let cluster: Cluster;
let server: PgServer;
beforeAll(async () => {
  cluster = new Cluster();
  server = await cluster.primary("catalog");
});
afterAll(async () => {
  await cluster.destroy();
});

it("pg15.json is this server's pg_settings (hack/parameter-catalog/generate.ts 15 when not)", () => {
  expect(catalogFromRows("15", JSON.parse(server.sql(CATALOG_QUERY)))).toEqual(pg15);
});

/** [parameter, value]: the server decides; admission must agree. */
const CASES: [string, string][] = [
  ["shared_buffers", "128MB"],
  ["shared_buffers", "1.5GB"],
  ["shared_buffers", "16"],
  ["shared_buffers", "15"],
  ["shared_buffers", "-1GB"],
  ["shared_buffers", "64mb"],
  ["shared_buffers", "64 MB"],
  ["shared_buffers", "0x400"],
  ["shared_buffers", "010"],
  ["shared_buffers", "09"],
  ["shared_buffers", "1e3"],
  ["shared_buffers", "100000000GB"],
  ["work_mem", "64kB"],
  ["work_mem", "1B"],
  ["work_mem", "1TB"],
  ["work_mem", "10s"],
  ["work_mem", "lots"],
  ["max_connections", "200"],
  ["max_connections", "10kB"],
  ["max_connections", "2.5"],
  ["max_connections", "0"],
  ["checkpoint_timeout", "15min"],
  ["checkpoint_timeout", "1d"],
  ["checkpoint_timeout", "29s"],
  ["checkpoint_timeout", "500ms"],
  ["statement_timeout", "1500us"],
  ["statement_timeout", "1h"],
  ["statement_timeout", "1H"],
  ["vacuum_cost_delay", "2.5ms"],
  ["vacuum_cost_delay", "0.5"],
  ["vacuum_cost_delay", "101"],
  ["random_page_cost", "1.1"],
  ["random_page_cost", "-1"],
  ["random_page_cost", "1e400"],
  ["jit", "on"],
  ["jit", "Of"],
  ["jit", "o"],
  ["jit", "yes"],
  ["jit", "2"],
  ["huge_pages", "try"],
  ["huge_pages", "TRY"],
  ["huge_pages", "true"],
  ["huge_pages", "sometimes"],
  ["wal_compression", "lz4"],
  ["wal_compression", "1"],
  ["log_min_messages", "debug5"],
  ["log_min_messages", "verbose"],
  ["log_min_duration_statement", "-1"],
  ["log_min_duration_statement", "-2"],
  ["effective_io_concurrency", "1000"],
  ["effective_io_concurrency", "1001"],
];

it.each(CASES)("%s = %s: admission agrees with the server", (name, value) => {
  const { entry } = parameterEntry("15", name)!;
  let serverAccepts = true;
  try {
    server.sql(`ALTER SYSTEM SET ${name} = '${value.replace(/'/g, "''")}'`);
  } catch {
    serverAccepts = false;
  }
  server.sql("ALTER SYSTEM RESET ALL");
  expect({ value, accepted: parameterValueProblem(entry, value) === undefined }).toEqual({
    value,
    accepted: serverAccepts,
  });
});
