/**
 * What the apiserver does to a Database before any rule sees it: null in a field the schema
 * knows (a member, or a map's value) is dropped, as if absent (apiextensions'
 * PruneNonNullableNullsWithoutDefaults; no Database field is nullable or has a schema default).
 * A null list item, or one in an unknown field, stays (and is refused).
 */
import { isRecord } from "./judge";
import { SPEC, Shape } from "./known";

function prune(value: unknown, shape: Shape | undefined): unknown {
  if (Array.isArray(value)) {
    const items = shape?.kind === "list" ? shape.items : undefined;
    return value.map(v => prune(v, items));
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const member =
      shape?.kind === "object"
        ? Object.hasOwn(shape.fields, k)
          ? shape.fields[k]
          : undefined
        : shape?.kind === "map"
          ? { kind: "leaf" as const }
          : undefined;
    if (v === null && member !== undefined) continue;
    // defineProperty: a "__proto__" key must stay a key, not become the prototype.
    Object.defineProperty(out, k, {
      value: prune(v, member),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** The Database as the rules see it: a copy with the known fields' nulls dropped. */
export function normalize(database: unknown): unknown {
  if (!isRecord(database)) return database;
  const copy: Record<string, unknown> = { ...database };
  if (database.spec === null) delete copy.spec;
  else copy.spec = prune(database.spec, SPEC);
  return copy;
}
