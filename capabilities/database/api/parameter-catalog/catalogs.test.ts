import { SUPPORTED_VERSIONS } from "../database-schema";
import { hasCatalog, parameterEntry, parameterNames } from "./";
import pg14 from "./pg14.json";
import pg15 from "./pg15.json";
import pg16 from "./pg16.json";
import pg17 from "./pg17.json";
import pg18 from "./pg18.json";

const FILES: Record<string, { major: string; source: string }> = {
  "14": pg14,
  "15": pg15,
  "16": pg16,
  "17": pg17,
  "18": pg18,
};

describe.each(SUPPORTED_VERSIONS)("PostgreSQL %s", major => {
  it("has a catalog of its own major, saying where it came from", () => {
    expect(hasCatalog(major)).toBe(true);
    expect(FILES[major].major).toBe(major);
    expect(FILES[major].source).toMatch(/pg_settings of PostgreSQL|guc(_tables)?\.c of PostgreSQL/);
    expect(parameterNames(major).length).toBeGreaterThan(340);
  });

  it.each([
    ["shared_buffers", { type: "integer", context: "postmaster", unit: "8kB", min: 16 }],
    ["work_mem", { type: "integer", context: "user", unit: "kB", min: 64, max: 2147483647 }],
    ["max_connections", { type: "integer", context: "postmaster", min: 1 }],
    ["statement_timeout", { type: "integer", context: "user", unit: "ms", min: 0 }],
    ["random_page_cost", { type: "real", context: "user", min: 0, max: 1.79769e308 }],
    ["full_page_writes", { type: "bool", context: "sighup" }],
    [
      "wal_level",
      { type: "enum", context: "postmaster", values: ["minimal", "replica", "logical"] },
    ],
    ["server_version", { type: "string", context: "internal" }],
  ])("%s is what every major says", (name, expected) => {
    expect(parameterEntry(major, name)?.entry).toMatchObject(expected);
  });
});

/** [parameter, the majors that have it]: what each major added or dropped. */
const LIFETIMES: [string, string[]][] = [
  ["stats_temp_directory", ["14"]], // dropped in 15 (statistics in shared memory)
  ["archive_library", ["15", "16", "17", "18"]],
  ["vacuum_buffer_usage_limit", ["16", "17", "18"]],
  ["old_snapshot_threshold", ["14", "15", "16"]], // dropped in 17
  ["io_combine_limit", ["17", "18"]],
  ["transaction_timeout", ["17", "18"]],
  ["io_method", ["18"]],
  ["autovacuum_worker_slots", ["18"]],
  // A security fix of every branch in August 2024 (16's catalog adds it on top of 16.2's tables).
  ["restrict_nonsystem_relation_kind", ["14", "15", "16", "17", "18"]],
  // Debian's own patch, which 18's packaging dropped for upstream's extension_control_path.
  ["extension_destdir", ["14", "15", "16", "17"]],
];

it.each(LIFETIMES)("%s is in exactly the majors %j", (name, majors) => {
  expect(SUPPORTED_VERSIONS.filter(major => parameterEntry(major, name))).toEqual(majors);
});

it("knows wal_compression as a bool in 14 and as an enum with the compressors from 15", () => {
  expect(parameterEntry("14", "wal_compression")?.entry).toEqual({
    type: "bool",
    context: "superuser",
  });
  expect(parameterEntry("16", "wal_compression")?.entry.values).toEqual([
    "pglz",
    "lz4",
    "zstd",
    "on",
    "off",
  ]);
});

it("has no catalog for a major it does not support", () => {
  expect(hasCatalog("13")).toBe(false);
  expect(hasCatalog("constructor")).toBe(false);
  expect(parameterEntry("13", "shared_buffers")).toBeUndefined();
  expect(parameterNames("13")).toEqual([]);
});
