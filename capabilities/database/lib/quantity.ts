/**
 * Kubernetes resource quantities ("500m", "2", "1.5Gi", "10G", "1e3", or an integer), parsed
 * the way the apiserver's resource.Quantity reads them.
 *
 * Values are kept as exact fractions (bigint numerator over a power of ten) so comparisons never
 * suffer from floating point: "0.1" and "100m" compare equal, "1Gi" and "1073741824" too.
 */

/** Thrown by `parseQuantity` / `compareQuantities`; the message says what is wrong. */
export class QuantityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuantityError";
  }
}

/** An exact value: numerator / denominator (denominator is a power of ten, > 0). */
interface Exact {
  num: bigint;
  den: bigint;
}

/**
 * Longer strings are refused before any bigint work: real quantities are short, and a
 * megabyte of digits in an admission request must not cost seconds of CPU.
 */
const MAX_LENGTH = 64;
/** Bound on decimal exponents ("1e999999" would otherwise build a huge bigint). */
const MAX_EXPONENT = 60;

const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const NUMBER = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(.*)$/;
const EXPONENT = /^[eE]([+-]?[0-9]+)$/;

const HINT = 'examples: "500m", "2", "1.5Gi", "10G", "1e3"';

const show = (input: unknown): string =>
  typeof input === "string" ? JSON.stringify(input) : String(input);

/** Returns the power-of-two and power-of-ten scale of `suffix`, or undefined when unknown. */
function scaleOf(suffix: string): { exp2: number; exp10: number } | undefined {
  if (suffix in BINARY_SUFFIXES) return { exp2: BINARY_SUFFIXES[suffix], exp10: 0 };
  if (suffix in DECIMAL_SUFFIXES) return { exp2: 0, exp10: DECIMAL_SUFFIXES[suffix] };
  const exponent = EXPONENT.exec(suffix);
  if (!exponent) return undefined;
  const exp10 = Number(exponent[1]);
  if (Math.abs(exp10) > MAX_EXPONENT) return { exp2: 0, exp10: Number.NaN };
  return { exp2: 0, exp10 };
}

/**
 * The exact value of `input`, or why it is not a quantity. Never throws: a reconcile pass compares
 * many strings that are not quantities (timestamps, addresses), and an Error's stack for each
 * cost seconds of CPU per converge of 1,000 Databases.
 */
function exactOrReason(input: unknown): Exact | string {
  if (typeof input === "number") {
    // The CRD declares quantities int-or-string: a JSON number must be an integer.
    if (!Number.isSafeInteger(input))
      return `${input} is not a quantity: numbers must be integers (${HINT})`;
    return { num: BigInt(input), den: 1n };
  }
  if (typeof input !== "string")
    return `${show(input)} is not a quantity: expected a string (${HINT})`;
  if (input.length === 0) return `an empty string is not a quantity (${HINT})`;
  if (input.length > MAX_LENGTH) return `quantity is longer than ${MAX_LENGTH} characters`;
  return exactOfText(input);
}

function exactOfText(text: string): Exact | string {
  const match = NUMBER.exec(text);
  const scale = match ? scaleOf(match[3]) : undefined;
  if (!match || !scale) return `${show(text)} is not a quantity (${HINT})`;
  if (Number.isNaN(scale.exp10)) return `${show(text)}: exponent out of range (-60..60)`;
  const [intPart, fracPart = ""] = match[2].split(".");
  const sign = match[1] === "-" ? -1n : 1n;
  let num = sign * BigInt(`${intPart}${fracPart}` || "0") * 2n ** BigInt(scale.exp2);
  let den = 10n ** BigInt(fracPart.length);
  if (scale.exp10 >= 0) num *= 10n ** BigInt(scale.exp10);
  else den *= 10n ** BigInt(-scale.exp10);
  return { num, den };
}

function toExact(input: unknown): Exact {
  const exact = exactOrReason(input);
  if (typeof exact === "string") throw new QuantityError(exact);
  return exact;
}

/** The value of a quantity as a plain number, or undefined when `input` is not one. */
export function quantityValue(input: unknown): number | undefined {
  const exact = exactOrReason(input);
  return typeof exact === "string" ? undefined : Number(exact.num) / Number(exact.den);
}

/**
 * Parses a quantity to a plain number (bytes for memory and storage, cores for CPU).
 * Throws `QuantityError` with a readable message when `input` is not a valid quantity.
 */
export function parseQuantity(input: unknown): number {
  const { num, den } = toExact(input);
  return Number(num) / Number(den);
}

/** The reason `input` is not a valid quantity, or undefined when it is one. */
export function quantityError(input: unknown): string | undefined {
  const exact = exactOrReason(input);
  return typeof exact === "string" ? exact : undefined;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. Throws on invalid input. */
export function compareQuantities(a: unknown, b: unknown): -1 | 0 | 1 {
  const x = toExact(a);
  const y = toExact(b);
  const left = x.num * y.den;
  const right = y.num * x.den;
  if (left === right) return 0;
  return left < right ? -1 : 1;
}
