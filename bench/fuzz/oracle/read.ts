/** Typed reads of a field: each reports a wrong type or bound as a CRD (schema) finding. */
import { isRecord, Judge } from "./judge";

export interface StrOpts {
  min?: number;
  max?: number;
  pattern?: RegExp;
}

export function str(j: Judge, v: unknown, f: string, o: StrOpts = {}): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string") return void j.bad(f, "not a string", "crd");
  if (o.min !== undefined && v.length < o.min) return void j.bad(f, `shorter than ${o.min}`, "crd");
  if (o.max !== undefined && v.length > o.max) return void j.bad(f, `longer than ${o.max}`, "crd");
  if (o.pattern && !o.pattern.test(v)) return void j.bad(f, `does not match ${o.pattern}`, "crd");
  return v;
}

/**
 * Whether the apiserver reads a JSON number as an integer: JavaScript writes integers below 1e21
 * in digits, which Go decodes as int64 when they fit; beyond, a float is no integer.
 */
export const isApiInteger = (v: unknown): v is number =>
  typeof v === "number" && Number.isInteger(v) && Math.abs(v) < 2 ** 63;

export function int(j: Judge, v: unknown, f: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (!isApiInteger(v)) return void j.bad(f, "not an integer", "crd");
  if (v < min || v > max) return void j.bad(f, `outside ${min}..${max}`, "crd");
  return v;
}

export function bool(j: Judge, v: unknown, f: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") return void j.bad(f, "not a boolean", "crd");
  return v;
}

export function oneOf(
  j: Judge,
  v: unknown,
  f: string,
  values: readonly string[],
): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !values.includes(v))
    return void j.bad(f, `not one of ${values.join(", ")}`, "crd");
  return v;
}

export function obj(j: Judge, v: unknown, f: string): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  if (!isRecord(v)) return void j.bad(f, "not an object", "crd");
  return v;
}

/** Required members of an object that is present. */
export function required(j: Judge, o: Record<string, unknown>, f: string, names: string[]): void {
  for (const n of names) if (o[n] === undefined) j.bad(`${f}.${n}`, "required", "crd");
}
