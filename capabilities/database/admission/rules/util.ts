/** Small helpers shared by the rules. */
import { compareQuantities, quantityError } from "../../lib/quantity";

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Structural equality of JSON values (key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every(key => Object.hasOwn(b, key) && deepEqual(a[key], b[key]))
  );
}

/** True when `value` is a valid quantity; rules skip invalid ones, the format rule reports them. */
export const isQuantity = (value: unknown): boolean => quantityError(value) === undefined;

/** True when both are valid quantities and `a` < `b`. Never throws. */
export const quantityBelow = (a: unknown, b: unknown): boolean =>
  isQuantity(a) && isQuantity(b) && compareQuantities(a, b) < 0;

/**
 * The format the CRD accepts for sizes (storage.size, backup.volume.size): a plain number with an
 * optional suffix, no exponent, sign or milli. Kept equal to QUANTITY_STRING_PATTERN in the schema.
 */
const SIZE_PATTERN = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

/** Why `value` is not a size the CRD accepts, or undefined. */
export function sizeError(value: string): string | undefined {
  const error = quantityError(value);
  if (error !== undefined) return `${error}; write a size such as "10Gi"`;
  if (!SIZE_PATTERN.test(value)) {
    return `"${value}" is not a size; write a number with an optional suffix such as "10Gi" or "500M"`;
  }
  return undefined;
}

/** Shows a possibly absent value in a message. */
export const shown = (value: unknown): string =>
  value === undefined ? "(unset)" : JSON.stringify(value);
