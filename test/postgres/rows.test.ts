/**
 * The e2e check "no acknowledged row lost", against a real server: counted inside PostgreSQL from
 * id ranges, however many rows were acknowledged.
 */
import { missingAcknowledgedRows } from "../e2e/load/rows";
import { Cluster } from "./harness/cluster";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

const cluster = new Cluster();
let server: PgServer;

beforeAll(async () => {
  server = await cluster.primary();
  server.sql("CREATE TABLE load (id bigint PRIMARY KEY)");
  // Two writers' worth of rows, 2 million in all; ids 700 and 1000000500 are missing.
  server.sql(
    "INSERT INTO load SELECT g FROM generate_series(1, 1000000) g WHERE g <> 700 " +
      "UNION ALL SELECT 1000000000 + g FROM generate_series(1, 1000000) g WHERE g <> 500",
  );
});
afterAll(() => cluster.destroy());

const creds = () => ({
  host: server.target.host,
  port: String(server.target.port),
  user: "postgres",
  password: server.target.password,
  dbname: "postgres",
});

describe("missingAcknowledgedRows", () => {
  it("finds nothing missing when every acknowledged id is there", async () => {
    const check = await missingAcknowledgedRows(creds(), "load", [
      [1, 699],
      [701, 1_000_000],
      [1_000_000_001, 1_000_000_499],
    ]);
    expect(check).toEqual({ acknowledged: 1_000_000 - 1 + 499, missing: 0, sample: [] });
  });

  it("counts and names the missing ones, two million acknowledged", async () => {
    const check = await missingAcknowledgedRows(creds(), "load", [
      [1, 1_000_000],
      [1_000_000_001, 1_000_000_000 + 1_000_000],
    ]);
    expect(check).toEqual({
      acknowledged: 2_000_000,
      missing: 2,
      sample: [700, 1_000_000_500],
    });
  });
});
