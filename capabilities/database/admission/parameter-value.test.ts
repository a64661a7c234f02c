/**
 * parameterValueProblem against guc.c's input rules, edge by edge; the postgres tier checks a
 * sample against a real server's ALTER SYSTEM (test/postgres/parameter-catalog.test.ts). The
 * refusals below were admitted before (issue 14's fuzz, bench/fuzz/README.md).
 */
import { parameterEntry } from "../api/parameter-catalog";
import { parameterValueProblem } from "./parameter-value";

const NBSP = "\u00a0";

const problem = (name: string, value: string): string | undefined =>
  parameterValueProblem(parameterEntry("16", name)!.entry, value);

describe("parameterValueProblem", () => {
  it.each<[string, string, boolean]>([
    // booleans: prefixes of true/false/yes/no, on/of(f), 1/0; nothing around them
    ["enable_seqscan", "on", true],
    ["enable_seqscan", "TR", true],
    ["enable_seqscan", "of", true],
    ["enable_seqscan", "o", false],
    ["enable_seqscan", " on", false],
    ["enable_seqscan", "on ", false],
    // enums: whole names in any case; boolean words whole, not prefixes
    ["huge_pages", "try", true],
    ["huge_pages", "TRY", true],
    ["huge_pages", "true", true],
    ["huge_pages", "1", true],
    ["huge_pages", "t", false],
    ["huge_pages", "tr", false],
    ["huge_pages", " on", false],
    ["wal_compression", "lz4", true],
    // integers: strtol base 0, C blanks only
    ["checkpoint_timeout", " 300", true],
    ["checkpoint_timeout", "300 s", true],
    ["checkpoint_timeout", `${NBSP}300`, false],
    ["checkpoint_timeout", `300${NBSP}`, false],
    ["effective_cache_size", "010", true], // octal 8 (pages)
    ["effective_cache_size", "07.5", true], // strtod: 7.5, rounded
    ["effective_cache_size", "08.5", false], // strtol stops at the 8; "8.5" is no unit
    ["effective_cache_size", "09", false],
    ["effective_cache_size", "0x100", true],
    ["effective_cache_size", "0.5GB", true],
    // reals: strtod, decimal always
    ["random_page_cost", "08.5", true],
    ["random_page_cost", `${NBSP}4`, false],
  ])("%s = %j accepted: %p", (name, value, accepted) => {
    expect(problem(name, value) === undefined).toBe(accepted);
  });
});

describe("a numeric value longer than any number", () => {
  it.each([
    ["work_mem", "1".repeat(4095) + "!"],
    ["work_mem", "1" + " ".repeat(4094) + "!"],
    ["random_page_cost", "1".repeat(65)],
  ])("%s = <%#> is refused by its length, before any pattern", (name, value) => {
    expect(problem(name, value)).toBe(
      `a value of ${value.length} characters is not a number (at most 64)`,
    );
  });
});

describe("DateStyle", () => {
  const dateStyle = (value: string) =>
    parameterValueProblem(parameterEntry("16", "DateStyle")!.entry, value, "DateStyle");
  it.each<[string, boolean]>([
    ["ISO, MDY", true],
    ["iso,dmy", true],
    ["German", true],
    ["SQL, European", true],
    ["DMY, European", true],
    ["default", true],
    ["30s", false],
    ["TRY", false],
    ["ISO, SQL", false],
    ["DMY, MDY", false],
  ])("%j accepted: %p", (value, accepted) => {
    expect(dateStyle(value) === undefined).toBe(accepted);
  });
});
