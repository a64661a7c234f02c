import {
  checkpoint,
  probeInstance,
  promote,
} from "../../capabilities/database/instance/instance-sql";
import { lsnDiff } from "../../capabilities/database/instance/lsn";
import { Cluster } from "./harness/cluster";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

const TIMEOUT_MS = 5000;
const cluster = new Cluster();
let primary: PgServer;
let standby: PgServer;
let other: PgServer;

beforeAll(async () => {
  primary = await cluster.primary();
  standby = await cluster.standby(primary, "s1");
  other = await cluster.standby(primary, "s2");
});
afterAll(() => cluster.destroy());

/** Timeline history files in pg_wal: one is written per promotion. */
const historyFiles = (s: PgServer): string =>
  s.sql(
    "SELECT string_agg(name, ',' ORDER BY name) FROM pg_ls_dir('pg_wal') AS name WHERE name LIKE '%.history'",
  );

describe("promote", () => {
  it("turns a streaming standby into a primary on the next timeline", async () => {
    const before = await probeInstance(standby.target, TIMEOUT_MS);
    expect(before).toMatchObject({ inRecovery: true, timeline: 1 });

    await promote(standby.target, 30);

    const after = await probeInstance(standby.target, TIMEOUT_MS);
    expect(after).toMatchObject({ inRecovery: false, timeline: 2, standbys: [] });
    expect(after.walReceiverStatus).toBeUndefined();
    expect(historyFiles(standby)).toBe("00000002.history");
    standby.sql("CREATE TABLE written_after_promotion (id int)");
  });

  it("is idempotent: promoting the promoted server again does not start another timeline", async () => {
    await promote(standby.target, 30);
    await promote(standby.target, 30);
    expect(await probeInstance(standby.target, TIMEOUT_MS)).toMatchObject({
      inRecovery: false,
      timeline: 2,
    });
    expect(historyFiles(standby)).toBe("00000002.history");
  });

  it("survives two concurrent calls: both resolve, one promotion", async () => {
    await Promise.all([promote(other.target, 30), promote(other.target, 30)]);
    expect(await probeInstance(other.target, TIMEOUT_MS)).toMatchObject({
      inRecovery: false,
      timeline: 2,
    });
    expect(historyFiles(other)).toBe("00000002.history");
  });

  it("leaves a primary that was never in recovery alone", async () => {
    await promote(primary.target, 30);
    expect(await probeInstance(primary.target, TIMEOUT_MS)).toMatchObject({
      inRecovery: false,
      timeline: 1,
    });
    expect(historyFiles(primary)).toBe("");
  });
});

describe("checkpoint", () => {
  it("moves the primary's last checkpoint past the latest write", async () => {
    primary.sql("CREATE TABLE before_checkpoint AS SELECT generate_series(1, 1000) AS g");
    const written = primary.sql("SELECT pg_current_wal_lsn()");
    await checkpoint(primary.target);
    const redo = primary.sql("SELECT redo_lsn FROM pg_control_checkpoint()");
    expect(lsnDiff(redo, written)).toBeGreaterThanOrEqual(0n);
  });
});
