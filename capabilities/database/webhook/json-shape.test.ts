import { shapeProblem } from "./json-shape";

/** An object nested `levels` deep: {a:{a:{…}}}. */
function nested(levels: number): unknown {
  let value: unknown = "leaf";
  for (let i = 1; i < levels; i++) value = { a: value };
  return levels > 0 ? { a: value } : value;
}

describe("shapeProblem", () => {
  const limits = { maxDepth: 4, maxNodes: 10 };
  it.each([
    ["a scalar", 42, undefined],
    ["null", null, undefined],
    ["an empty object", {}, undefined],
    ["objects 4 deep", nested(4), undefined],
    ["objects 5 deep", nested(5), { kind: "depth", limit: 4 }],
    ["arrays 5 deep", [[[[["x"]]]]], { kind: "depth", limit: 4 }],
    ["10 values", { a: [1, 2, 3, 4, 5, 6, 7, 8] }, undefined],
    ["11 values", { a: [1, 2, 3, 4, 5, 6, 7, 8, 9] }, { kind: "nodes", limit: 10 }],
  ])("%s", (_, value, expected) => {
    expect(shapeProblem(value, limits)).toEqual(expected);
  });

  it("measures a value far deeper than any stack allows, without recursion", () => {
    const deep = JSON.parse("[".repeat(200_000) + "]".repeat(200_000));
    expect(shapeProblem(deep, { maxDepth: 64, maxNodes: 1_000_000 })).toEqual({
      kind: "depth",
      limit: 64,
    });
  });
});
