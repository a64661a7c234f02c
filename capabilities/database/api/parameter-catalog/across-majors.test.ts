import { lostParameter } from "./across-majors";

describe("lostParameter", () => {
  it.each([
    ["16", "force_parallel_mode", "PostgreSQL 15 has it, 16 does not: use debug_parallel_query"],
    ["17", "FORCE_PARALLEL_MODE", "PostgreSQL 15 has it, 17 does not: use debug_parallel_query"],
    ["18", "ssl_ecdh_curve", "PostgreSQL 17 has it, 18 does not: use ssl_groups"],
    [
      "17",
      "vacuum_defer_cleanup_age",
      "PostgreSQL 15 has it, 17 does not; hot_standby_feedback, which the standbys report to the primary, keeps what they read",
    ],
    ["17", "old_snapshot_threshold", "PostgreSQL 16 has it, 17 does not; it has no successor"],
    [
      "15",
      "stats_temp_directory",
      "PostgreSQL 14 has it, 15 does not; statistics are kept in shared memory since PostgreSQL 15",
    ],
    // A parameter of Debian trixie's 17 build that forky's 18 lacks: named, with no advice.
    ["18", "composite_type_mismatch", "PostgreSQL 17 has it, 18 does not"],
    // Never known, or known to the major itself: nothing to say.
    ["17", "shared_bufers", undefined],
    ["17", "shared_buffers", undefined],
    ["15", "debug_parallel_query", undefined],
  ])("PostgreSQL %s, %s", (major, name, expected) => {
    expect(lostParameter(major, name)).toBe(expected);
  });
});
