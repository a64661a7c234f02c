import { equals } from "ramda";
import { jsonEqual } from "./json-equal";

describe("jsonEqual", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["the same primitive", "a", "a", true],
    ["different primitives", 1, "1", false],
    ["null and an object", null, {}, false],
    [
      "objects whose keys are in another order",
      { a: 1, b: [1, { c: 2 }] },
      { b: [1, { c: 2 }], a: 1 },
      true,
    ],
    ["an extra key", { a: 1 }, { a: 1, b: 2 }, false],
    ["a key with undefined against none", { a: undefined }, {}, false],
    ["undefined against undefined in the same key", { a: undefined }, { a: undefined }, true],
    ["a key of the other's length but another name", { a: 1 }, { b: 1 }, false],
    ["arrays in another order", [1, 2], [2, 1], false],
    ["an array and an object with index keys", [1], { 0: 1 }, false],
    ["arrays of another length", [1], [1, 1], false],
    [
      "nested difference deep down",
      { a: { b: { c: [1, 2, { d: "x" }] } } },
      { a: { b: { c: [1, 2, { d: "y" }] } } },
      false,
    ],
    ["empty object and empty array", {}, [], false],
    ["a key named like an Object property", { toString: 1 }, { valueOf: 1 }, false],
  ])("%s: %p", (_name, a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
    expect(equals(a, b)).toBe(expected); // the same answer as ramda's on JSON values
  });
});
