import { applyParameters, probeInstance } from "../../capabilities/database/instance/instance-sql";
import { Cluster } from "./harness/cluster";
import { PgServer } from "./harness/server";

jest.setTimeout(180_000);

const cluster = new Cluster();
let primary: PgServer;
let standby: PgServer;

beforeAll(async () => {
  primary = await cluster.primary();
  standby = await cluster.standby(primary, "s1");
});
afterAll(() => cluster.destroy());

/** postgresql.auto.conf as the server reads it from disk now. */
const autoConf = (s: PgServer): string =>
  s.sql(
    `SELECT coalesce(string_agg(name || '=' || setting, ' ' ORDER BY seqno), '') FROM pg_file_settings
      WHERE sourcefile = current_setting('data_directory') || '/postgresql.auto.conf'`,
  );
const startTime = (s: PgServer): string => s.sql("SELECT pg_postmaster_start_time()");

describe.each([
  ["primary", () => primary],
  ["hot standby", () => standby],
])("applyParameters on a %s", (_role, server) => {
  afterAll(async () => {
    await applyParameters(server().target, {});
  });

  it("applies reloadable parameters without a restart, and only once", async () => {
    const s = server();
    const started = startTime(s);
    const desired = { work_mem: "8MB", log_min_duration_statement: "250ms" };

    expect(await applyParameters(s.target, desired)).toEqual({
      changed: true,
      pendingRestart: [],
      notApplied: [],
    });
    expect(s.sql("SHOW work_mem")).toBe("8MB");
    expect(s.sql("SHOW log_min_duration_statement")).toBe("250ms");
    expect(autoConf(s)).toBe("work_mem=8MB log_min_duration_statement=250ms");
    expect(startTime(s)).toBe(started);

    const again = await applyParameters(s.target, {
      log_min_duration_statement: "250ms",
      work_mem: "8MB",
    });
    expect(again).toEqual({ changed: false, pendingRestart: [], notApplied: [] });
  });

  it("resets a parameter that is no longer desired", async () => {
    const s = server();
    const result = await applyParameters(s.target, { work_mem: "8MB" });
    expect(result.changed).toBe(true);
    expect(autoConf(s)).toBe("work_mem=8MB");
    expect(s.sql("SHOW log_min_duration_statement")).toBe("-1");
  });

  it.each([
    [
      { work_mem: "16MB", maintenance_work_mem: "lots" },
      'parameter maintenance_work_mem: invalid value for parameter "maintenance_work_mem": "lots"',
    ],
    [
      { work_mem: "16MB", no_such_parameter: "1" },
      'parameter no_such_parameter: unrecognized configuration parameter "no_such_parameter"',
    ],
    [
      { work_mem: "16MB", data_directory: "/elsewhere" },
      'parameter data_directory: parameter "data_directory" cannot be changed',
    ],
  ])("refuses %p, naming the parameter, and changes nothing", async (desired, message) => {
    const s = server();
    // work_mem is accepted (and staged) before the refusal: it must not stay in the file.
    await expect(applyParameters(s.target, desired)).rejects.toThrow(
      `applyParameters on 127.0.0.1:${s.port}: ${message}`,
    );
    expect(autoConf(s)).toBe("work_mem=8MB");
    expect(s.sql("SHOW work_mem")).toBe("8MB");
  });

  it("writes a list parameter element by element, and compares lists by element", async () => {
    const s = server();
    const desired = { work_mem: "8MB", search_path: '"$user",public,"Mixed Case"' };
    expect(await applyParameters(s.target, desired)).toEqual({
      changed: true,
      pendingRestart: [],
      notApplied: [],
    });
    expect(autoConf(s)).toBe('work_mem=8MB search_path="$user", public, "Mixed Case"');
    expect(s.sql("SHOW search_path")).toBe('"$user", public, "Mixed Case"');
    const respaced = { work_mem: "8MB", search_path: ' "$user" , PUBLIC,"Mixed Case"' };
    expect((await applyParameters(s.target, respaced)).changed).toBe(false);
    expect((await applyParameters(s.target, { work_mem: "8MB" })).changed).toBe(true);
  });

  it("folds parameter names to lower case", async () => {
    const s = server();
    expect((await applyParameters(s.target, { Work_Mem: "8MB" })).changed).toBe(false);
    await expect(applyParameters(s.target, { work_mem: "8MB", WORK_MEM: "9MB" })).rejects.toThrow(
      "parameter WORK_MEM is given twice",
    );
  });
});

describe("restart-only parameters", () => {
  it("are listed as pending restart and not applied until the restart", async () => {
    const desired = { shared_buffers: "64MB", work_mem: "8MB" };
    expect(await applyParameters(primary.target, desired)).toEqual({
      changed: true,
      pendingRestart: ["shared_buffers"],
      notApplied: ["shared_buffers"],
    });
    expect(primary.sql("SHOW shared_buffers")).toBe("128MB");
    expect(primary.sql("SHOW work_mem")).toBe("8MB");
    expect((await probeInstance(primary.target, 5000)).pendingRestart).toEqual(["shared_buffers"]);

    await primary.restart("fast");
    expect(primary.sql("SHOW shared_buffers")).toBe("64MB");
    expect(await applyParameters(primary.target, desired)).toEqual({
      changed: false,
      pendingRestart: [],
      notApplied: [],
    });

    // Removing it is a change that waits for a restart too.
    expect(await applyParameters(primary.target, { work_mem: "8MB" })).toEqual({
      changed: true,
      pendingRestart: ["shared_buffers"],
      notApplied: [],
    });
    await primary.restart("fast");
    expect(primary.sql("SHOW shared_buffers")).toBe("128MB");
  });

  it("load shared_preload_libraries given as one comma-separated value", async () => {
    // Written as one literal, this would be the single library "pg_stat_statements,auto_explain"
    // and the server would not start again.
    const desired = { shared_preload_libraries: "pg_stat_statements,auto_explain" };
    expect(await applyParameters(primary.target, desired)).toMatchObject({
      pendingRestart: ["shared_preload_libraries"],
      notApplied: ["shared_preload_libraries"],
    });
    await primary.restart("fast");
    expect(primary.sql("SHOW shared_preload_libraries")).toBe("pg_stat_statements, auto_explain");
    // Both libraries are loaded: their parameters exist.
    expect(primary.sql("SHOW pg_stat_statements.max")).toBe("5000");
    expect(primary.sql("SHOW auto_explain.log_min_duration")).toBe("-1");
    expect(await applyParameters(primary.target, desired)).toEqual({
      changed: false,
      pendingRestart: [],
      notApplied: [],
    });

    // PostgreSQL 15 marks a restart-only parameter removed from the file as pending restart
    // whatever the running value; only a restart clears it.
    const removed = await applyParameters(primary.target, {});
    expect(removed.pendingRestart).toEqual(["shared_preload_libraries"]);
    await primary.restart("fast");
    expect((await probeInstance(primary.target, 5000)).pendingRestart).toEqual([]);
  });
});

describe("wal_level, the user's between replica and logical", () => {
  const slots = (): string =>
    primary.sql(
      "SELECT coalesce(string_agg(slot_name, ',' ORDER BY 1), '') FROM pg_replication_slots WHERE slot_type = 'logical'",
    );

  it("rises to logical with a restart, and stays logical while a logical slot exists", async () => {
    expect(await applyParameters(primary.target, { wal_level: "logical" })).toMatchObject({
      changed: true,
      pendingRestart: ["wal_level"],
    });
    await primary.restart("fast");
    expect(primary.sql("SHOW wal_level")).toBe("logical");
    primary.sql("SELECT pg_create_logical_replication_slot('orders_migration', 'pgoutput')");

    // Lowered now, the next restart would fail: "logical replication slot ... exists, but
    // wal_level < logical". The file keeps logical, and the reason names the slot.
    const held = await applyParameters(primary.target, { wal_level: "replica" });
    expect(held).toEqual({
      changed: false,
      pendingRestart: [],
      notApplied: [],
      heldBack:
        "wal_level stays logical while logical replication slots exist (orders_migration): PostgreSQL would not start below logical with them; drop them and it is lowered to replica",
    });
    expect(autoConf(primary)).toBe("wal_level=logical");
    await primary.restart("fast");
    expect(primary.sql("SHOW wal_level")).toBe("logical");
    expect(slots()).toBe("orders_migration");
  });

  it("is lowered once the logical slots are dropped", async () => {
    primary.sql("SELECT pg_drop_replication_slot('orders_migration')");
    const lowered = await applyParameters(primary.target, { wal_level: "replica" });
    expect(lowered).toMatchObject({ changed: true, pendingRestart: ["wal_level"] });
    expect(lowered.heldBack).toBeUndefined();
    await primary.restart("fast");
    expect(primary.sql("SHOW wal_level")).toBe("replica");
    // The standby streamed throughout, at either level.
    await standby.waitFor("SELECT status FROM pg_stat_wal_receiver", "streaming", 60_000);
    await applyParameters(primary.target, {});
  });
});
