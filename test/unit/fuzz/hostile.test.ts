import { caseVariants, hostileCase } from "../../../bench/fuzz/hostile";

describe("the fuzz bench's hostile case", () => {
  it("varies the case of each name's letters, the name as written first", () => {
    expect(caseVariants(["ab_c"], 9)).toEqual([
      "ab_c",
      "Ab_c",
      "aB_c",
      "AB_c",
      "ab_C",
      "Ab_C",
      "aB_C",
      "AB_C",
    ]);
  });

  it("holds 200 distinct names, all one of two parameters, each a 4,096-character value", () => {
    const parameters = (hostileCase().object.spec as { postgresql: { parameters: object } })
      .postgresql.parameters as Record<string, string>;
    const names = Object.keys(parameters);
    expect(names).toHaveLength(200);
    expect(new Set(names.map(n => n.toLowerCase()))).toEqual(
      new Set(["work_mem", "maintenance_work_mem"]),
    );
    expect(new Set(Object.values(parameters).map(v => v.length))).toEqual(new Set([4096]));
  });
});
