/**
 * The structural check that runs before every other rule: types, required fields and size
 * bounds, read from the same schema the CRD is generated from, so the two cannot disagree.
 *
 * The apiserver enforces these types when the CRD is installed, but the webhook must not rely on
 * it (older CRD, CRD missing, a test calling it directly): a malformed spec gets a clear denial
 * here and the value rules only ever see well-typed input, so they cannot throw on it.
 */
import { databaseSpecSchema } from "../../api/database-schema";
import { JsonSchema } from "../../api/schema";
import { Denial, deny } from "./types";
import { isRecord } from "./util";

/** "got …" part of a type error, short enough for a message. */
function got(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") {
    const text = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(text)}`;
  }
  if (typeof value === "object") return "an object";
  return String(value);
}

const expected = (path: string, what: string, value: unknown): Denial =>
  deny(path, `must be ${what}, got ${got(value)}`);

type Check = (value: unknown, schema: JsonSchema, path: string) => Denial[];

function checkString(value: unknown, schema: JsonSchema, path: string): Denial[] {
  if (typeof value !== "string") return [expected(path, "a string", value)];
  if (schema.maxLength !== undefined && value.length > schema.maxLength) {
    return [deny(path, `must be at most ${schema.maxLength} characters, got ${value.length}`)];
  }
  return [];
}

function checkArray(value: unknown, schema: JsonSchema, path: string): Denial[] {
  if (!Array.isArray(value)) return [expected(path, "a list", value)];
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    return [deny(path, `must have at most ${schema.maxItems} items, got ${value.length}`)];
  }
  return value.flatMap((item, i) => checkValue(item, schema.items ?? {}, `${path}[${i}]`));
}

function requiredHint(schema: JsonSchema | undefined): string {
  return schema?.enum ? ` (one of ${schema.enum.join(", ")})` : "";
}

function checkObject(value: unknown, schema: JsonSchema, path: string): Denial[] {
  if (!isRecord(value)) {
    const what = schema.additionalProperties ? "a map" : "an object";
    return [expected(path, what, value)];
  }
  const keys = Object.keys(value);
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    return [deny(path, `must have at most ${schema.maxProperties} entries, got ${keys.length}`)];
  }
  const properties = schema.properties ?? {};
  const missing = (schema.required ?? [])
    .filter(name => value[name] === undefined)
    .map(name => deny(`${path}.${name}`, `is required${requiredHint(properties[name])}`));
  const present = keys.flatMap(key => {
    if (value[key] === undefined) return [];
    if (properties[key]) return checkValue(value[key], properties[key], `${path}.${key}`);
    // Map entries (additionalProperties) are shown as path[key]: keys may contain dots.
    const entry = schema.additionalProperties;
    return entry ? checkValue(value[key], entry, `${path}[${key}]`) : [];
  });
  return [...missing, ...present];
}

const CHECKS: Record<string, Check> = {
  string: checkString,
  integer: (value, _schema, path) =>
    Number.isInteger(value) ? [] : [expected(path, "an integer", value)],
  boolean: (value, _schema, path) =>
    typeof value === "boolean" ? [] : [expected(path, "true or false", value)],
  array: checkArray,
  object: checkObject,
};

/** Checks `value` against `schema`; unknown fields are ignored (the apiserver prunes them). */
function checkValue(value: unknown, schema: JsonSchema, path: string): Denial[] {
  if (schema["x-kubernetes-int-or-string"]) {
    return typeof value === "string" || Number.isInteger(value)
      ? []
      : [expected(path, 'a quantity such as "500m" or "1Gi"', value)];
  }
  const check = schema.type ? CHECKS[schema.type] : undefined;
  return check ? check(value, schema, path) : [];
}

/** Structural denials of a Database spec (empty when its types match the schema). */
export const checkSpecShape = (spec: unknown): Denial[] =>
  spec === undefined
    ? [deny("spec", "is required: a Database needs at least spec.version and spec.storage.size")]
    : checkValue(spec, databaseSpecSchema.json, "spec");

/** Structural denials of a whole Database object (metadata.name and spec). */
export function checkShape(obj: unknown): Denial[] {
  if (!isRecord(obj)) return [expected("(root)", "a Database object", obj)];
  const { metadata } = obj;
  if (metadata !== undefined && !isRecord(metadata)) {
    return [expected("metadata", "an object", metadata)];
  }
  const name = metadata?.name;
  const nameDenials =
    name === undefined || typeof name === "string"
      ? []
      : [expected("metadata.name", "a string", name)];
  return [...nameDenials, ...checkSpecShape(obj.spec)];
}
