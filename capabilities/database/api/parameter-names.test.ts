/**
 * One table, fed to admission and to the configuration builder: a name admission accepts is
 * written to postgresql.auto.conf, a name it refuses never is.
 */
import { validateDatabase } from "../admission/validate";
import { userParameters } from "../specs/postgresql-conf";
import { input } from "../../../test/unit/builder-fixtures";
import { parameterNameProblem } from "./parameter-names";

const NAMES: [string, "invalid" | "operator-owned" | undefined][] = [
  ["work_mem", undefined],
  ["Work_Mem", undefined],
  ["pg_stat_statements.max", undefined],
  ["my_ext.section.knob", undefined], // custom names may have several dots
  ["_private", undefined],
  ["a".repeat(100), undefined],
  ["a".repeat(101), "invalid"],
  ["1st", "invalid"],
  ["work-mem", "invalid"],
  ["ext..knob", "invalid"],
  ["ext.", "invalid"],
  [".knob", "invalid"],
  ["work_mem = 1\nfsync", "invalid"],
  ["wal_level", "operator-owned"],
  ["Port", "operator-owned"],
  ["PRIMARY_CONNINFO", "operator-owned"],
];

describe("parameter names: one rule for admission and the builder", () => {
  it.each(NAMES)("%j → %p", (name, problem) => {
    expect(parameterNameProblem(name)).toBe(problem);
    const spec = { postgresql: { parameters: { [name]: "1" } } };
    const denied = validateDatabase(input(spec).db).some(d =>
      d.field.startsWith("spec.postgresql.parameters"),
    );
    const written = userParameters(input(spec).spec).some(([n]) => n === name);
    expect(denied).toBe(problem !== undefined);
    expect(written).toBe(problem === undefined);
  });
});
