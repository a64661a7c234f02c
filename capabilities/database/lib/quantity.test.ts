import {
  compareQuantities,
  parseQuantity,
  QuantityError,
  quantityError,
  quantityValue,
} from "./quantity";

describe("parseQuantity", () => {
  it.each<[string | number, number]>([
    ["500m", 0.5],
    ["2", 2],
    ["0", 0],
    ["1.5Gi", 1.5 * 2 ** 30],
    ["10G", 10e9],
    ["1e3", 1000],
    ["1E3", 1000],
    ["1e-3", 0.001],
    ["1E", 1e18],
    ["1Ki", 1024],
    ["128Mi", 128 * 2 ** 20],
    ["2Ti", 2 * 2 ** 40],
    ["1Pi", 2 ** 50],
    ["1Ei", 2 ** 60],
    ["1k", 1000],
    ["3M", 3e6],
    ["4T", 4e12],
    ["5P", 5e15],
    ["250u", 0.00025],
    ["100n", 1e-7],
    [".5", 0.5],
    ["1.", 1],
    ["+1", 1],
    ["-1", -1],
    ["-0.5Gi", -0.5 * 2 ** 30],
    [1073741824, 2 ** 30],
    [0, 0],
    [3, 3],
  ])("%p -> %p", (input, expected) => {
    expect(parseQuantity(input)).toBeCloseTo(expected, 12);
  });

  it.each<[unknown, RegExp]>([
    ["", /empty string/],
    ["abc", /"abc" is not a quantity/],
    ["1 Gi", /not a quantity/],
    [" 1Gi", /not a quantity/],
    ["1Gi ", /not a quantity/],
    ["1gi", /not a quantity/],
    ["1GB", /not a quantity/],
    ["1KI", /not a quantity/],
    ["1K", /not a quantity/],
    ["1e", /not a quantity/],
    ["1e1.5", /not a quantity/],
    ["Gi", /not a quantity/],
    [".", /not a quantity/],
    ["1..2", /not a quantity/],
    ["--1", /not a quantity/],
    ["1e61", /exponent out of range/],
    ["1".repeat(65), /longer than 64/],
    [2.5, /numbers must be integers/],
    [Number.NaN, /numbers must be integers/],
    [Number.POSITIVE_INFINITY, /numbers must be integers/],
    [true, /expected a string/],
    [null, /expected a string/],
    [undefined, /expected a string/],
    [{}, /expected a string/],
  ])("rejects %p", (input, message) => {
    expect(() => parseQuantity(input)).toThrow(QuantityError);
    expect(() => parseQuantity(input)).toThrow(message);
    expect(quantityError(input)).toMatch(message);
  });

  it("quantityError is undefined for valid quantities", () => {
    expect(quantityError("1Gi")).toBeUndefined();
    expect(quantityError(5)).toBeUndefined();
  });
});

describe("quantityValue", () => {
  it.each<[unknown, number | undefined]>([
    ["1Gi", 1073741824],
    ["500m", 0.5],
    [3, 3],
    ["2026-12-07T04:22:20Z", undefined],
    ["10.0.0.1", undefined],
    ["", undefined],
    [1.5, undefined],
    [undefined, undefined],
    [{}, undefined],
  ])("%p is %p, and never throws", (input, expected) => {
    expect(quantityValue(input)).toBe(expected);
  });
});

describe("compareQuantities", () => {
  it.each<[string | number, string | number, -1 | 0 | 1]>([
    ["1Gi", "1Gi", 0],
    ["1Gi", "1024Mi", 0],
    ["1Gi", 1073741824, 0],
    ["0.1", "100m", 0],
    ["1e3", "1k", 0],
    ["1G", "1Gi", -1],
    ["1Gi", "1G", 1],
    ["5Gi", "10Gi", -1],
    ["10Gi", "5Gi", 1],
    ["500m", "1", -1],
    ["2", "1500m", 1],
    ["-1", "0", -1],
    ["0.30000000000000004", "0.3", 1],
    ["1000000000000000001", "1e18", 1],
  ])("%p vs %p -> %p", (a, b, expected) => {
    expect(compareQuantities(a, b)).toBe(expected);
  });

  it("throws on an invalid side", () => {
    expect(() => compareQuantities("1Gi", "big")).toThrow(QuantityError);
    expect(() => compareQuantities(undefined, "1Gi")).toThrow(QuantityError);
  });
});
