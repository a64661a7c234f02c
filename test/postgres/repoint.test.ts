/**
 * Repointing a standby at a new primary with the operator's applyParameters (primary_conninfo in
 * postgresql.auto.conf, then a reload), while its connection to the lost primary still hangs:
 * the old primary is frozen, so TCP stays up and nothing ever closes the connection. Only a
 * change of primary_conninfo makes PostgreSQL restart the WAL receiver before
 * wal_receiver_timeout, and until then the new primary has no synchronous standby.
 */
import { applyParameters, promote } from "../../capabilities/database/instance/instance-sql";
import { Cluster } from "./harness/cluster";
import { eventually } from "./harness/eventually";
import { PgServer } from "./harness/server";

jest.setTimeout(180_000);

/** Far above what a repoint takes, far below when the hung connection would end by itself. */
const RECEIVER_TIMEOUT = "5min";
const REPOINTED_WITHIN_MS = 30_000;

const cluster = new Cluster();
let oldPrimary: PgServer;
let newPrimary: PgServer;
let standby: PgServer;

beforeAll(async () => {
  oldPrimary = await cluster.primary("db-0", { wal_sender_timeout: "0" });
  newPrimary = await cluster.standby(oldPrimary, "db-1");
  standby = await cluster.standby(oldPrimary, "db-2");
  await applyParameters(standby.target, { wal_receiver_timeout: RECEIVER_TIMEOUT });
});
afterAll(() => cluster.destroy());

const conninfo = (to: PgServer, name: string): string =>
  `host=127.0.0.1 port=${to.port} user=postgres password=${cluster.password} ` +
  `application_name=${name} connect_timeout=5`;

describe("a change of primary_conninfo", () => {
  it("restarts the WAL receiver even when only an unused keyword changes", async () => {
    const receiver = () => standby.sql("SELECT pid FROM pg_stat_wal_receiver");
    await standby.waitFor("SELECT status FROM pg_stat_wal_receiver", "streaming");
    const before = receiver();
    // What the operator changes at a failover when the host (<db>-rw) stays the same.
    await applyParameters(standby.target, {
      wal_receiver_timeout: RECEIVER_TIMEOUT,
      primary_conninfo: `${conninfo(oldPrimary, "db-2")} fallback_application_name=db-0`,
    });
    await eventually(() => expect(receiver()).not.toBe(before));
    await standby.waitFor("SELECT status FROM pg_stat_wal_receiver", "streaming");
    await oldPrimary.waitFor(
      "SELECT state FROM pg_stat_replication WHERE application_name = 'db-2'",
      "streaming",
    );
  });
});

describe("a standby whose primary froze", () => {
  it("streams from the new primary as soon as primary_conninfo names it", async () => {
    oldPrimary.freeze();
    try {
      await promote(newPrimary.target, 30);
      const applied = await applyParameters(standby.target, {
        wal_receiver_timeout: RECEIVER_TIMEOUT,
        primary_conninfo: conninfo(newPrimary, "db-2"),
      });
      expect(applied).toEqual({ changed: true, pendingRestart: [], notApplied: [] });
      await newPrimary.waitFor(
        "SELECT state FROM pg_stat_replication WHERE application_name = 'db-2'",
        "streaming",
        REPOINTED_WITHIN_MS,
      );
      newPrimary.sql("CREATE TABLE after_repoint AS SELECT 1 AS x");
      await standby.waitFor("SELECT count(*) FROM after_repoint", "1");
      expect(standby.sql("SELECT received_tli FROM pg_stat_wal_receiver")).toBe("2");
    } finally {
      oldPrimary.thaw();
    }
  });
});
