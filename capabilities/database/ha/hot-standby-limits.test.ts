import { loweredLimits } from "./hot-standby-limits";

describe("loweredLimits", () => {
  const running = {
    max_connections: 200,
    max_worker_processes: 8,
    max_wal_senders: 16,
    max_prepared_transactions: 0,
    max_locks_per_transaction: 64,
  };
  it.each<[string, Record<string, string>, string[]]>([
    ["nothing changes", { max_connections: "200" }, []],
    ["a rise", { max_connections: "300" }, []],
    ["a reduction", { max_connections: "120" }, ["max_connections"]],
    ["a limit removed from the spec returns to the default", {}, ["max_connections"]],
    [
      "several, sorted",
      { max_connections: "150", max_locks_per_transaction: "32" },
      ["max_connections", "max_locks_per_transaction"],
    ],
    ["a value PostgreSQL would parse differently is left to it", { max_connections: "1e" }, []],
    ["other parameters do not count", { max_connections: "200", work_mem: "1MB" }, []],
  ])("%s", (_, desired, expected) => {
    expect(loweredLimits(running, desired)).toEqual(expected);
  });

  it("knows nothing without running values (an older probe)", () => {
    expect(loweredLimits(undefined, {})).toEqual([]);
  });
});
