/**
 * What a standby reports as its position once restarted with no primary to stream from: the WAL
 * it holds (replayed from its own pg_wal), never the segment boundary its WAL receiver restarts
 * from. A failover promotes the standby holding the most WAL by this figure. Reporting the
 * boundary made every restarted standby look equal, and promoting the one with less lost what only
 * the other had: the other then could not follow ("forked off ... before current recovery point").
 * Seen in CI on 2026-12-02, after every pod was deleted at once.
 */
import { parseLsn } from "../../capabilities/database/instance/lsn";
import { probeInstance } from "../../capabilities/database/instance/instance-sql";
import { Cluster } from "./harness/cluster";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

let cluster: Cluster;
let primary: PgServer;
let standby: PgServer;

beforeEach(async () => {
  cluster = new Cluster();
  primary = await cluster.primary("primary");
  standby = await cluster.standby(primary, "standby");
});
afterEach(() => cluster.destroy());

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

it("a standby restarted without a primary reports the WAL it replayed, not where streaming restarts", async () => {
  primary.sql("CREATE TABLE t AS SELECT g FROM generate_series(1, 20000) g");
  const written = primary.sql("SELECT pg_current_wal_lsn()");
  await standby.waitFor(`SELECT pg_last_wal_replay_lsn() >= '${written}'`, "t");
  await primary.stop("fast");
  await standby.stop("fast");
  await standby.start();

  // Once local WAL is replayed the startup process asks for streaming, and the receive position
  // becomes the start of the segment it will stream from, while no primary answers.
  const deadline = Date.now() + 30_000;
  while (standby.sql("SELECT pg_last_wal_receive_lsn() IS NOT NULL") !== "t") {
    if (Date.now() > deadline) throw new Error("the standby never asked for streaming");
    await sleep(100);
  }
  const receive = standby.sql("SELECT pg_last_wal_receive_lsn()");
  const replay = standby.sql("SELECT pg_last_wal_replay_lsn()");
  expect(parseLsn(receive)).toBeLessThan(parseLsn(replay)); // the condition that misled us

  const probe = await probeInstance(standby.target, 5000);
  expect(probe.inRecovery).toBe(true);
  expect(probe.lsn).toBe(replay);
  expect(parseLsn(probe.lsn)).toBeGreaterThanOrEqual(parseLsn(written));
});
