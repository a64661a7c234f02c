/**
 * After a major upgrade of the primary, a standby's data is the old major's. The entrypoint
 * (run for real) clones the upgraded primary again and replaces its data only once the clone is
 * complete, and only when the primary runs the image's major; a primary it may not copy leaves
 * its data as it was. The old major is faked by PG_VERSION: the host has one major's programs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Cluster } from "./harness/cluster";
import { entrypointFor } from "./harness/entrypoint";
import { pgMajor } from "./harness/os";
import { PgServer } from "./harness/server";

jest.setTimeout(240_000);

let cluster: Cluster;
let primary: PgServer;
let standby: PgServer;
let launch: ReturnType<typeof entrypointFor>;
beforeAll(async () => {
  cluster = new Cluster();
  primary = await cluster.primary("db-0");
  primary.sql("CREATE TABLE acknowledged AS SELECT g AS id FROM generate_series(1, 1000) g");
  standby = await cluster.standby(primary, "db-1");
  await standby.stop("fast");
  launch = entrypointFor(cluster, standby, primary, "db-1");
});
afterAll(() => cluster.destroy());

const older = String(Number(pgMajor()) - 1);

it("clones the primary again when its data is an older major's and the primary runs the image's", async () => {
  writeFileSync(path.join(standby.dataDir, "PG_VERSION"), `${older}\n`);
  primary.sql("INSERT INTO acknowledged SELECT g FROM generate_series(1001, 2000) g");
  await standby.start(180_000, launch);
  expect(readFileSync(path.join(standby.dataDir, "PG_VERSION"), "utf8").trim()).toBe(pgMajor());
  await primary.waitFor(
    "SELECT state FROM pg_stat_replication WHERE application_name = 'db-1'",
    "streaming",
    60_000,
  );
  await standby.waitFor("SELECT count(*) FROM acknowledged", "2000", 60_000);
  expect(standby.sql("SELECT pg_is_in_recovery()")).toBe("t");
  expect(standby.logTail(200)).toContain(
    `This instance's data is PostgreSQL ${older}'s and the primary runs ${pgMajor()}: cloning it again`,
  );
  await standby.stop("fast");
});

it("never clones over the data of the instance the topology names primary", async () => {
  writeFileSync(path.join(standby.dataDir, "PG_VERSION"), `${older}\n`);
  // db-1 named primary (its own pod): it is the upgrade's to convert, never a clone's to replace.
  cluster.writeOwned(launch.topologyPrimaryFile, "db-1");
  await expect(standby.start(30_000, launch)).rejects.toThrow(/exited while starting/);
  expect(standby.logTail(50)).toContain(
    `The data directory was written by PostgreSQL ${older} and the image runs PostgreSQL ${pgMajor()}`,
  );
  expect(readFileSync(path.join(standby.dataDir, "PG_VERSION"), "utf8").trim()).toBe(older);
});
