import { compareLsn, formatLsn, lagBytes, lsnDiff, parseLsn } from "./lsn";

describe("parseLsn / formatLsn", () => {
  it.each([
    ["0/0", 0n, "0/0"],
    ["0/1", 1n, "0/1"],
    ["16/B374D848", 0x16b374d848n, "16/B374D848"],
    ["16/b374d848", 0x16b374d848n, "16/B374D848"], // lower case accepted, printed upper
    ["0/3000060", 0x3000060n, "0/3000060"],
    ["1/0", 1n << 32n, "1/0"],
    ["00000001/00000000", 1n << 32n, "1/0"], // padded input, unpadded output
    ["FFFFFFFF/FFFFFFFF", (1n << 64n) - 1n, "FFFFFFFF/FFFFFFFF"],
  ])("%s → %p → %s", (text, value, printed) => {
    expect(parseLsn(text)).toBe(value);
    expect(formatLsn(value)).toBe(printed);
  });

  it.each([
    [""],
    ["0"],
    ["/0"],
    ["0/"],
    ["0/0/0"],
    [" 0/0"],
    ["0/0 "],
    ["G/0"],
    ["-1/0"],
    ["0x1/0"],
    ["123456789/0"], // a half has at most 8 hex digits
    ["0/123456789"],
  ])("rejects %p", text => {
    expect(() => parseLsn(text)).toThrow(`invalid LSN ${JSON.stringify(text)}`);
  });

  it.each([[-1n], [1n << 64n]])("formatLsn rejects %p", v => {
    expect(() => formatLsn(v)).toThrow("outside 0..2^64-1");
  });
});

describe("lsnDiff / lagBytes / compareLsn", () => {
  it.each([
    ["0/3000060", "0/3000000", 0x60n, 0x60n, 1],
    ["0/3000000", "0/3000060", -0x60n, 0n, -1], // replica read after the primary: no lag
    ["1/0", "0/FFFFFFFF", 1n, 1n, 1], // across the 4 GiB boundary
    ["16/B374D848", "16/B374D848", 0n, 0n, 0],
    ["FFFFFFFF/FFFFFFFF", "0/0", (1n << 64n) - 1n, (1n << 64n) - 1n, 1], // beyond 2^53
  ])("%s vs %s: diff %p, lag %p, compare %p", (a, b, diff, lag, cmp) => {
    expect(lsnDiff(a, b)).toBe(diff);
    expect(lagBytes(a, b)).toBe(lag);
    expect(compareLsn(a, b)).toBe(cmp);
  });

  it("rejects a malformed operand", () => {
    expect(() => lsnDiff("0/0", "nope")).toThrow('invalid LSN "nope"');
    expect(() => compareLsn("x", "0/0")).toThrow('invalid LSN "x"');
  });
});
