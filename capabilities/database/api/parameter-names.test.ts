/**
 * One table, fed to admission and to the configuration builder: a name whose syntax admission
 * refuses is never written to postgresql.auto.conf; one it accepts is. Admission also refuses
 * well-formed names its major's catalog does not know ("unknown"): those never reach the builder.
 */
import { validateDatabase } from "../admission/validate";
import { userParameters } from "../specs/postgresql-conf";
import { input } from "../../../test/unit/builder-fixtures";
import { BLOCKED_PARAMETERS } from "./database-schema";
import { parameterNameProblem } from "./parameter-names";

const NAMES: [string, "invalid" | "operator-owned" | "blocked" | "unknown" | undefined][] = [
  ["work_mem", undefined],
  ["Work_Mem", undefined],
  ["pg_stat_statements.max", undefined],
  ["my_ext.section.knob", undefined], // custom names may have several dots
  ["_private", "unknown"],
  ["a".repeat(100), "unknown"],
  ["a".repeat(101), "invalid"],
  ["1st", "invalid"],
  ["work-mem", "invalid"],
  ["ext..knob", "invalid"],
  ["ext.", "invalid"],
  [".knob", "invalid"],
  ["work_mem = 1\nfsync", "invalid"],
  ["wal_log_hints", "operator-owned"],
  ["Port", "operator-owned"],
  ["PRIMARY_CONNINFO", "operator-owned"],
  // Every blocked name, refused by admission and never written (issue 28).
  ...Object.keys(BLOCKED_PARAMETERS).map((n): [string, "blocked"] => [n, "blocked"]),
  ["Archive_Library", "blocked"],
];

describe("parameter names: one rule for admission and the builder", () => {
  it.each(NAMES)("%j → %p", (name, refusal) => {
    const problem = refusal === "unknown" ? undefined : refusal;
    expect(parameterNameProblem(name)).toBe(problem);
    const spec = { postgresql: { parameters: { [name]: "4MB" } } };
    const denied = validateDatabase(input(spec).db).some(d =>
      d.field.startsWith("spec.postgresql.parameters"),
    );
    const written = userParameters(input(spec).spec).some(([n]) => n === name);
    expect(denied).toBe(refusal !== undefined);
    expect(written).toBe(problem === undefined);
  });
});
