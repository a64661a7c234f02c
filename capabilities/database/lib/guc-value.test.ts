import {
  isListQuoted,
  MAX_NUMBER_LENGTH,
  numberWithUnit,
  parseBool,
  sameFileValue,
  SettingRow,
  settingMatches,
  splitList,
  toSettingUnit,
} from "./guc-value";

describe("splitList", () => {
  it.each([
    ["shared_preload_libraries", "", []],
    ["shared_preload_libraries", "  ", []],
    ["shared_preload_libraries", "pg_stat_statements", ["pg_stat_statements"]],
    [
      "shared_preload_libraries",
      "pg_stat_statements,auto_explain",
      ["pg_stat_statements", "auto_explain"],
    ],
    ["shared_preload_libraries", " a ,  b ", ["a", "b"]],
    ["shared_preload_libraries", "Lib", ["Lib"]], // file names keep their case
    ["shared_preload_libraries", '"a,b", c', ["a,b", "c"]],
    ["search_path", '"$user", public', ["$user", "public"]],
    ["search_path", 'Public, "Mixed"', ["public", "Mixed"]], // unquoted identifiers fold
    ["search_path", '"say ""hi"""', ['say "hi"']],
  ])("%s = %p → %p", (name, value, elements) => {
    expect(splitList(name, value)).toEqual(elements);
  });

  it.each([
    ['"a', "unterminated"],
    ["a,", "empty element"],
    [",a", "empty element"],
    ['"a" b', "unexpected b"],
  ])("rejects %p", (value, message) => {
    expect(() => splitList("search_path", value)).toThrow(message);
  });
});

describe("sameFileValue", () => {
  it.each([
    ["work_mem", "64MB", "64MB", true],
    ["work_mem", "64MB", "65536kB", false], // file values are compared as written
    ["shared_preload_libraries", "a,b", "a, b", true],
    ["shared_preload_libraries", "a,b", "b,a", false],
    ["search_path", '"$user",public', '"$user", public', true],
    ["search_path", "PUBLIC", "public", true],
    ["search_path", '"a', '"a', true],
    ["search_path", '"a', "a", false], // unreadable lists are never equal to another text
  ])("%s: %p vs %p → %p", (name, a, b, same) => {
    expect(sameFileValue(name, a, b)).toBe(same);
  });

  it("knows the quoted lists only", () => {
    expect(isListQuoted("shared_preload_libraries")).toBe(true);
    expect(isListQuoted("log_destination")).toBe(false); // a list, but not quoted
  });
});

describe("numberWithUnit", () => {
  const long = (n: number) => "1".repeat(n);
  it.each([
    ["8kB", { number: "8", unit: "kB" }],
    [" \t8 kB \n", { number: "8", unit: "kB" }],
    ["1.", { number: "1.", unit: "" }],
    [".5s", { number: ".5", unit: "s" }],
    ["-1.5e3ms", { number: "-1.5e3", unit: "ms" }],
    ["0x1F", { number: "0x1F", unit: "" }],
    ["15", { number: "15", unit: "" }],
    ["1 2", undefined],
    ["1e", { number: "1", unit: "e" }], // strtod stops before a bare e; "e" is then no unit
    [".", undefined],
    ["kB", undefined],
    ["", undefined],
    ["1\u00a0kB", undefined], // a no-break space is no blank to PostgreSQL
    [long(MAX_NUMBER_LENGTH), { number: long(MAX_NUMBER_LENGTH), unit: "" }],
    [long(MAX_NUMBER_LENGTH + 1), undefined],
    [long(4095) + "!", undefined], // the admission ReDoS value: refused by its length
  ])("%p → %p", (value, expected) => {
    expect(numberWithUnit(value)).toEqual(expected);
  });
});

describe("toSettingUnit", () => {
  it.each([
    ["64MB", "kB", 65536],
    ["64MB", "8kB", 8192],
    ["128 MB", "8kB", 16384],
    ["1GB", "MB", 1024],
    ["1.5GB", "MB", 1536],
    ["4096", "8kB", 4096], // no unit: the parameter's own
    ["0x10", "kB", 16],
    ["-1", "ms", -1],
    ["1s", "ms", 1000],
    ["5min", "s", 300],
    ["1h", "min", 60],
    ["1d", "s", 86400],
    ["500us", "ms", 0.5],
    ["1e3", "ms", 1000],
    ["64mb", "kB", undefined], // units are case-sensitive in PostgreSQL
    ["1s", "kB", undefined], // a time for a memory parameter
    ["1MB", null, undefined],
    ["abc", "kB", undefined],
    ["", "kB", undefined],
  ])("%p in %p → %p", (desired, unit, expected) => {
    expect(toSettingUnit(desired, unit)).toBe(expected);
  });
});

describe("parseBool", () => {
  it.each([
    ["on", true],
    ["ON", true],
    ["true", true],
    ["t", true],
    ["yes", true],
    ["y", true],
    ["1", true],
    ["off", false],
    ["of", false],
    ["f", false],
    ["no", false],
    ["0", false],
    ["o", undefined],
    ["", undefined],
    ["maybe", undefined],
    ["2", undefined],
  ])("%p → %p", (value, expected) => {
    expect(parseBool(value)).toBe(expected);
  });
});

describe("settingMatches", () => {
  const row = (
    name: string,
    vartype: string,
    setting: string,
    unit: string | null = null,
  ): SettingRow => ({
    name,
    vartype,
    setting,
    unit,
  });

  it.each([
    [row("work_mem", "integer", "65536", "kB"), "64MB", true],
    [row("work_mem", "integer", "65536", "kB"), "65536", true],
    [row("work_mem", "integer", "4096", "kB"), "64MB", false],
    [row("shared_buffers", "integer", "16384", "8kB"), "128MB", true],
    [row("shared_buffers", "integer", "16384", "8kB"), "64MB", false],
    [row("log_min_duration_statement", "integer", "250", "ms"), "250ms", true],
    [row("log_min_duration_statement", "integer", "-1", "ms"), "-1", true],
    [row("checkpoint_timeout", "integer", "300", "s"), "5min", true],
    [row("checkpoint_completion_target", "real", "0.9"), "0.9", true],
    [row("checkpoint_completion_target", "real", "0.9"), "0.5", false],
    [row("max_connections", "integer", "100"), "100", true],
    [row("max_connections", "integer", "100"), "lots", false],
    [row("hot_standby", "bool", "on"), "true", true],
    [row("hot_standby", "bool", "on"), "off", false],
    [row("hot_standby", "bool", "on"), "maybe", false],
    [row("wal_level", "enum", "replica"), "REPLICA", true],
    [row("wal_level", "enum", "replica"), "logical", false],
    [row("synchronous_standby_names", "string", "ANY 1 (*)"), "ANY 1 (*)", true],
    [row("application_name", "string", "a"), "A", false],
    [row("shared_preload_libraries", "string", "a, b"), "a,b", true],
  ])("%p = %p → %p", (r, desired, expected) => {
    expect(settingMatches(r, desired)).toBe(expected);
  });
});
