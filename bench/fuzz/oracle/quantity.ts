/**
 * resource.ParseQuantity (apimachinery v0.34, quantity.go), written from its source as exact
 * rationals: what CEL's quantity() and the apiserver compare. Floats would misjudge bounds such
 * as 64Ti against "70368744177664" or "1.00000000000000000001Gi".
 */

/** A non-negative or negative rational n/d, d > 0. */
export interface Rational {
  n: bigint;
  d: bigint;
}

const DECIMAL: Record<string, number> = {
  "": 0,
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const NANO = 10n ** 9n;
const MAX_INT64 = 2n ** 63n - 1n;
/** Exponents beyond this are not worth a bigint of that size: any bound here is far smaller. */
const EXPONENT_LIMIT = 400;

interface Parts {
  negative: boolean;
  num: string;
  denom: string;
  suffix: string;
}

/** parseQuantityString: sign, digits, optional fraction, then a suffix; undefined on ErrFormatWrong. */
function split(s: string): Parts | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(s);
  if (!m) return undefined;
  const [, sign, num, denom = "", suffix] = m;
  // The suffix is letters from "eEinumkKMGTP", an optional sign, then digits; nothing else.
  if (!/^[eEinumkKMGTP]*[+-]?[0-9]*$/.test(suffix)) return undefined;
  return { negative: sign === "-", num, denom, suffix };
}

/** suffixHandler.interpret: base and exponent, undefined on ErrSuffix. */
function interpret(suffix: string): { base: 2 | 10; exp: number } | undefined {
  if (Object.hasOwn(DECIMAL, suffix)) return { base: 10, exp: DECIMAL[suffix] };
  if (Object.hasOwn(BINARY, suffix)) return { base: 2, exp: BINARY[suffix] };
  const e = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
  if (!e) return undefined;
  const exp = Number(e[1]);
  return Math.abs(exp) > EXPONENT_LIMIT ? undefined : { base: 10, exp };
}

/** Rounds a non-zero magnitude up to a whole number of nano units, as ParseQuantity does. */
function roundUpToNano(r: Rational): Rational {
  if (r.n === 0n) return r;
  const negative = r.n < 0n;
  const mag = negative ? -r.n : r.n;
  const nanos = (mag * NANO + r.d - 1n) / r.d;
  return { n: negative ? -nanos : nanos, d: NANO };
}

/**
 * The value of a quantity string, or undefined where ParseQuantity returns an error. Exponents
 * beyond ±400 are reported as undefined too (they are far outside every bound the API has;
 * ParseQuantity itself accepts them).
 */
export function parseQuantity(s: string): Rational | undefined {
  if (s === "") return undefined;
  const parts = split(s);
  if (!parts) return undefined;
  const how = interpret(parts.suffix);
  if (!how) return undefined;
  const digits = BigInt(`${parts.num}${parts.denom}` || "0");
  let n = parts.negative ? -digits : digits;
  let d = 10n ** BigInt(parts.denom.length);
  if (how.base === 2) n *= 2n ** BigInt(how.exp);
  else if (how.exp >= 0) n *= 10n ** BigInt(how.exp);
  else d *= 10n ** BigInt(-how.exp);
  let value = roundUpToNano({ n, d });
  // BinarySI quantities are capped at the largest int64 (decimal ones are not).
  if (how.base === 2 && value.n > MAX_INT64 * value.d) value = { n: MAX_INT64, d: 1n };
  if (how.base === 2 && value.n < -MAX_INT64 * value.d) value = { n: -MAX_INT64, d: 1n };
  return value;
}

/** -1, 0 or 1 as a < b, a = b, a > b. */
export function compare(a: Rational, b: Rational): number {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** A bound written as a quantity ("64Ti"); throws on a typo in the oracle itself. */
export function q(s: string): Rational {
  const v = parseQuantity(s);
  if (!v) throw new Error(`oracle bug: ${s} is no quantity`);
  return v;
}

/** Whether the value is a whole number (of bytes, for sizes). */
export const isWhole = (r: Rational): boolean => r.n % r.d === 0n;
