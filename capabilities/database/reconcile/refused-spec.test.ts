import type { DatabaseSpec } from "../api/database-schema";
import { refusedParameters, withoutRefusedParameters } from "./refused-spec";

const spec = (parameters?: Record<string, string>): DatabaseSpec =>
  ({
    version: "16",
    storage: { size: "1Gi" },
    ...(parameters ? { postgresql: { parameters } } : {}),
  }) as DatabaseSpec;

describe("refusedParameters", () => {
  it.each<[string, { field: string }[], string[]]>([
    ["a refused parameter", [{ field: "spec.postgresql.parameters[fsync]" }], ["fsync"]],
    [
      "a name with brackets and dots",
      [{ field: "spec.postgresql.parameters[pg_stat_statements.track]" }],
      ["pg_stat_statements.track"],
    ],
    ["other fields", [{ field: "spec.instances" }, { field: "spec.image" }], []],
  ])("%s", (_, denials, names) => {
    expect([...refusedParameters(denials)]).toEqual(names);
  });
});

describe("withoutRefusedParameters", () => {
  it("drops the refused parameters and keeps the others", () => {
    const denials = [
      { field: "spec.postgresql.parameters[fsync]" },
      { field: "spec.postgresql.parameters[archive_library]" },
      { field: "spec.instances" },
    ];
    expect(
      withoutRefusedParameters(
        spec({ fsync: "off", work_mem: "8MB", archive_library: "x" }),
        denials,
      ).postgresql?.parameters,
    ).toEqual({ work_mem: "8MB" });
  });

  it("is the spec itself when no parameter is refused", () => {
    const s = spec({ work_mem: "8MB" });
    expect(withoutRefusedParameters(s, [{ field: "spec.instances" }])).toBe(s);
    expect(withoutRefusedParameters(spec(), [{ field: "spec.postgresql.parameters[x]" }])).toEqual(
      spec(),
    );
  });
});
