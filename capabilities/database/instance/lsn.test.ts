import { lagBytes, lsnDiff, parseLsn } from "./lsn";

describe("parseLsn", () => {
  it.each([
    ["0/0", 0n],
    ["0/1", 1n],
    ["16/B374D848", 0x16b374d848n],
    ["16/b374d848", 0x16b374d848n], // lower case accepted
    ["0/3000060", 0x3000060n],
    ["1/0", 1n << 32n],
    ["00000001/00000000", 1n << 32n], // padded input
    ["FFFFFFFF/FFFFFFFF", (1n << 64n) - 1n],
  ])("%s → %p", (text, value) => {
    expect(parseLsn(text)).toBe(value);
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
});

describe("lsnDiff / lagBytes", () => {
  it.each([
    ["0/3000060", "0/3000000", 0x60n, 0x60n],
    ["0/3000000", "0/3000060", -0x60n, 0n], // replica read after the primary: no lag
    ["1/0", "0/FFFFFFFF", 1n, 1n], // across the 4 GiB boundary
    ["16/B374D848", "16/B374D848", 0n, 0n],
    ["FFFFFFFF/FFFFFFFF", "0/0", (1n << 64n) - 1n, (1n << 64n) - 1n], // beyond 2^53
  ])("%s vs %s: diff %p, lag %p", (a, b, diff, lag) => {
    expect(lsnDiff(a, b)).toBe(diff);
    expect(lagBytes(a, b)).toBe(lag);
  });

  it("rejects a malformed operand", () => {
    expect(() => lsnDiff("0/0", "nope")).toThrow('invalid LSN "nope"');
    expect(() => lagBytes("x", "0/0")).toThrow('invalid LSN "x"');
  });
});
