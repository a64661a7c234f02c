/**
 * The parameter catalogs against the servers pgkeeper ships, one per major with an image (15, 17,
 * 18; IMAGE_VERSIONS): pg<N>.json is what that image's server says in pg_settings (regenerate
 * with hack/parameter-catalog/generate.ts N when it drifts), and admission's reading of values
 * agrees with the server's own, case by case: ALTER SYSTEM checks a value the way the server will
 * read it at start, for every context, without applying it. The servers run from the instance
 * images' own file systems (harness/image-server.ts), so a catalog is checked against the very
 * binaries an instance of that major runs.
 */
import pg15 from "../../capabilities/database/api/parameter-catalog/pg15.json";
import pg17 from "../../capabilities/database/api/parameter-catalog/pg17.json";
import pg18 from "../../capabilities/database/api/parameter-catalog/pg18.json";
import { parameterEntry } from "../../capabilities/database/api/parameter-catalog";
import type { ParameterCatalog } from "../../capabilities/database/api/parameter-catalog";
import { parameterValueProblem } from "../../capabilities/database/admission/parameter-value";
import { IMAGE_VERSIONS } from "../../capabilities/database/lib/config";
import { CATALOG_QUERY, catalogFromRows } from "../../hack/parameter-catalog/query";
import { ImageServer } from "./harness/image-server";

jest.setTimeout(120_000);

const COMMITTED: Record<(typeof IMAGE_VERSIONS)[number], unknown> = {
  "15": pg15,
  "17": pg17,
  "18": pg18,
};

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

describe.each(IMAGE_VERSIONS.map(major => [major]))("PostgreSQL %s", major => {
  let server: ImageServer;
  beforeAll(async () => {
    server = await ImageServer.start(major, `catalog-${major}`);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it(`is the major its image says (SHOW server_version)`, () => {
    expect(server.version.split(".")[0]).toBe(major);
  });

  it(`pg${major}.json is this server's pg_settings (hack/parameter-catalog/generate.ts ${major} when not)`, () => {
    const read: ParameterCatalog = catalogFromRows(
      major,
      JSON.parse(server.server.sql(CATALOG_QUERY)),
    );
    expect(read).toEqual(COMMITTED[major]);
  });

  it.each(CASES)("%s = %s: admission agrees with the server", (name, value) => {
    const { entry } = parameterEntry(major, name)!;
    let serverAccepts = true;
    try {
      server.server.sql(`ALTER SYSTEM SET ${name} = '${value.replace(/'/g, "''")}'`);
    } catch {
      serverAccepts = false;
    }
    server.server.sql("ALTER SYSTEM RESET ALL");
    expect({ value, accepted: parameterValueProblem(entry, value) === undefined }).toEqual({
      value,
      accepted: serverAccepts,
    });
  });
});
