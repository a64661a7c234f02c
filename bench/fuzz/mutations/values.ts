/** Pools of awkward values the mutations draw from. */
import type { Json } from "../bases";
import type { Rng } from "../prng";

export const UNICODE = [
  "ünïcödé",
  "数据库",
  "🐘",
  "\u200bzero-width",
  "e\u0301",
  "\u202eright-to-left",
  "tab\there",
  "new\nline",
  "nul\u0000byte",
  "\u00a0nbsp",
  "Ω",
  "\ud83d", // a lone surrogate: not valid UTF-16, JSON.stringify escapes it
];

/** A string of `n` characters (mostly a repeated letter; sometimes a DNS-ish pattern). */
export const repeat = (n: number, unit = "a"): string =>
  unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

/** A long string, rarely one over the webhook's 2 MiB body limit. */
export function hugeString(rng: Rng): string {
  const n = rng.chance(0.02) ? 2_200_000 : rng.pick([300, 1025, 4097, 10_000, 70_000]);
  return repeat(n, rng.pick(["a", "0", "ab-", "é"]));
}

/** Something of another JSON type than `kind`. */
export function otherType(rng: Rng, kind: string): Json {
  const pools: Record<string, Json[]> = {
    int: ["3", "1e2", 2.5, true, [], {}, "three", 1e21, -0.5],
    string: [5, 0, true, false, [], {}, ["a"], { a: "b" }, 1.5],
    bool: ["true", "false", "yes", 1, 0, "on", [], {}],
    enum: [true, false, 1, 16, [], {}, ["off"]],
    quantity: [true, [], {}, 1.5e300, -1, 0.1, { amount: "1Gi" }],
    size: [true, [], {}, 10, 1.5, -3, 1073741824],
  };
  return rng.pick(pools[kind] ?? pools.string);
}

export const INT_EDGES = (min: number, max: number): number[] => [
  min - 1,
  min,
  max,
  max + 1,
  0,
  -1,
  2 ** 31,
  2 ** 53,
  Number.MAX_SAFE_INTEGER + 2,
  1.5,
  min + 0.5,
];

/** Quantities: valid, odd-but-valid, and not quantities at all. */
export const QUANTITIES = [
  "500m",
  "1",
  "2",
  "0",
  "-1",
  "0.5",
  ".5",
  "5.",
  "1e3",
  "1E3",
  "1e-3",
  "1e1.5",
  "1e100",
  "1Ki",
  "128Mi",
  "127Mi",
  "1Gi",
  "1.5Gi",
  "10m",
  "9m",
  "1u",
  "1n",
  "100k",
  "1K",
  "1kb",
  "1Gb",
  "1GB",
  "1 Gi",
  " 1Gi",
  "1Gi ",
  "+1Gi",
  "0x10",
  "1_000",
  "1,5",
  "Inf",
  "NaN",
  "",
  "1Mi1",
  "12345678901234567890123456789012345678901234567890123456789012345",
  "1e60",
  "1e61",
  "256Mi",
  "255Mi",
  "268435456",
  "268435455",
  "0.25Gi",
];
