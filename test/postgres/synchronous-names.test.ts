/**
 * synchronous_standby_names as the builder writes it, applied live to a real primary: only the
 * named instances count towards the quorum; any other walsender (a base backup's stream) is async
 * and can never be the only holder of an acknowledged commit.
 */
import { applyParameters, probeInstance } from "../../capabilities/database/instance/instance-sql";
import { managedParameters } from "../../capabilities/database/specs/postgresql-conf";
import { input } from "../unit/builder-fixtures";
import { Cluster } from "./harness/cluster";
import { eventually } from "./harness/eventually";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

const cluster = new Cluster();
let primary: PgServer;

beforeAll(async () => {
  primary = await cluster.primary("orders-0");
  await cluster.standby(primary, "orders-1");
  await cluster.standby(primary, "pg_basebackup"); // what a backup's WAL stream is called
});
afterAll(() => cluster.destroy());

it("counts only the named standbys in quorum mode", async () => {
  const built = input({ instances: 3, postgresql: { synchronous: { mode: "quorum", number: 1 } } });
  const desired = Object.fromEntries(managedParameters(built));
  expect(desired.synchronous_standby_names).toBe('ANY 1 ("orders-0", "orders-1", "orders-2")');
  const applied = await applyParameters(primary.target, desired);
  expect(applied).toMatchObject({ changed: true, pendingRestart: [], notApplied: [] });
  await eventually(async () => {
    const standbys = (await probeInstance(primary.target, 5000)).standbys;
    expect(standbys.map(s => [s.name, s.syncState])).toEqual([
      ["orders-1", "quorum"],
      ["pg_basebackup", "async"],
    ]);
  });
});
