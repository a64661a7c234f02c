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

  it.each([
    ["at the top", '{"__proto__":1}', ["__proto__"]],
    ["in a map", '{"spec":{"parameters":{"__proto__":"1"}}}', ["spec", "parameters", "__proto__"]],
    ["in a list", '{"a":[{"b":1},{"__proto__":{}}]}', ["a", "1", "__proto__"]],
  ])("finds a __proto__ key %s, with its path", (_, json, path) => {
    expect(shapeProblem(JSON.parse(json), { maxDepth: 64, maxNodes: 100 })).toEqual({
      kind: "key",
      key: "__proto__",
      path,
    });
  });

  it("lets other keys JavaScript treats specially through (objects keep them)", () => {
    const value = JSON.parse('{"constructor":1,"prototype":{"toString":2},"hasOwnProperty":3}');
    expect(shapeProblem(value, { maxDepth: 64, maxNodes: 100 })).toBeUndefined();
  });

  it("measures a value far deeper than any stack allows, without recursion", () => {
    const deep = JSON.parse("[".repeat(200_000) + "]".repeat(200_000));
    expect(shapeProblem(deep, { maxDepth: 64, maxNodes: 1_000_000 })).toEqual({
      kind: "depth",
      limit: 64,
    });
  });
});
