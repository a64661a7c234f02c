/**
 * Mutations that know nothing of a field's meaning: another type, boundaries, removal of
 * required fields, unknown fields, huge strings, unicode, deep nesting, null.
 */
import type { Json, JsonObject } from "../bases";
import type { Rng } from "../prng";
import { FieldSpec, FIELDS, REQUIRED } from "./fields";
import { get, objectPaths, Path, remove, set, show } from "./paths";
import { hugeString, INT_EDGES, otherType, QUANTITIES, repeat, UNICODE } from "./values";
import type { Mutation } from "./types";

const describe = (path: readonly (string | number)[], value: Json): string => {
  const text = JSON.stringify(value) ?? String(value);
  return `${show(path)} = ${text.length > 60 ? `${text.slice(0, 60)}… (${text.length} chars)` : text}`;
};

function boundary(rng: Rng, field: FieldSpec): Json {
  switch (field.kind) {
    case "int":
      return rng.pick(INT_EDGES(field.min ?? 0, field.max ?? 100));
    case "enum": {
      const v = rng.pick(field.values ?? ["x"]);
      return rng.pick([v.toUpperCase(), ` ${v}`, `${v} `, `${v}x`, "", "13", "19", "16.2", "v16"]);
    }
    case "quantity":
    case "size":
      return rng.pick(QUANTITIES);
    case "bool":
      return rng.pick([true, false]);
    default: {
      const lengths = [field.minLength, field.maxLength]
        .filter((n): n is number => n !== undefined)
        .flatMap(n => [n - 1, n, n + 1])
        .filter(n => n >= 0);
      return repeat(
        rng.pick(lengths.length > 0 ? lengths : [0, 1, 64]),
        rng.pick(["a", "a-", "x."]),
      );
    }
  }
}

const setField =
  (pick: (rng: Rng, f: FieldSpec) => Json): Mutation["apply"] =>
  (rng, doc) => {
    const field = rng.pick(FIELDS);
    const value = pick(rng, field);
    set(doc, field.path, value);
    return describe(field.path, value);
  };

/** A path inside the spec where an object lives; undefined when the spec is gone. */
function someObject(rng: Rng, doc: JsonObject): Path | undefined {
  const paths = objectPaths(doc).filter(p => p[0] === "spec");
  return paths.length > 0 ? rng.pick(paths) : undefined;
}

function nested(depth: number, leaf: Json, arrays: boolean): Json {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = arrays && i % 2 === 0 ? [v] : { n: v };
  return v;
}

export const GENERIC: readonly Mutation[] = [
  { name: "other-type", weight: 6, apply: setField((rng, f) => otherType(rng, f.kind)) },
  { name: "boundary", weight: 8, apply: setField(boundary) },
  { name: "null", weight: 1, apply: setField(() => null) },
  { name: "huge-string", weight: 1, apply: setField(rng => hugeString(rng)) },
  { name: "unicode", weight: 2, apply: setField(rng => rng.pick(UNICODE)) },
  {
    name: "remove-required",
    weight: 4,
    apply: (rng, doc) => {
      const path = rng.pick(REQUIRED);
      return remove(doc, path) ? `removed ${show(path)}` : undefined;
    },
  },
  {
    name: "remove-any",
    weight: 2,
    apply: (rng, doc) => {
      const path = someObject(rng, doc);
      if (path === undefined) return undefined;
      const parent = get(doc, path);
      const keys = parent && typeof parent === "object" ? Object.keys(parent) : [];
      if (keys.length === 0 || path.length === 0) return undefined;
      const key = rng.pick(keys);
      const target = Array.isArray(parent) ? [...path, Number(key)] : [...path, key];
      return remove(doc, target) ? `removed ${show(target)}` : undefined;
    },
  },
  {
    name: "unknown-field",
    weight: 3,
    apply: (rng, doc) => {
      const path = someObject(rng, doc);
      if (path === undefined) return undefined;
      const key = rng.pick([
        "extra",
        "Version",
        "instance",
        "storageclass",
        "x-y",
        "",
        "__proto__",
        "constructor",
        "toString",
      ]);
      const value = rng.pick<Json>(["x", 1, true, { a: 1 }, [1, 2]]);
      set(doc, [...path, key], value);
      return `unknown ${describe([...path, key], value)}`;
    },
  },
  {
    name: "deep-nesting",
    weight: 1,
    apply: (rng, doc) => {
      const depth = rng.pick([10, 40, 70, 200]);
      const arrays = rng.chance(0.5);
      const value = nested(depth, "x", arrays);
      const inside = someObject(rng, doc);
      const path =
        rng.chance(0.5) || inside === undefined ? rng.pick(FIELDS).path : [...inside, "deep"];
      set(doc, path, value);
      return `${show(path)} = ${depth} levels of ${arrays ? "arrays and objects" : "objects"}`;
    },
  },
  {
    name: "number-as-string",
    weight: 2,
    apply: (rng, doc) => {
      const field = rng.pick(FIELDS.filter(f => f.kind === "int"));
      const value = String(rng.int(field.min ?? 0, Math.min(field.max ?? 10, 10)));
      set(doc, field.path, value);
      return describe(field.path, value);
    },
  },
  {
    name: "many-keys",
    weight: 1,
    apply: (rng, doc) => {
      const n = rng.pick([65, 201, 5000]);
      const map: JsonObject = {};
      for (let i = 0; i < n; i++) map[`k${i}`] = "v";
      const path = rng.pick([
        ["spec", "scheduling", "nodeSelector"],
        ["spec", "postgresql", "parameters"],
        ["spec", "extra"],
      ]);
      set(doc, path, map);
      return `${show(path)} = ${n} entries`;
    },
  },
];
