/** Reading and writing a JSON document by path, creating the objects on the way. */
import type { Json, JsonObject } from "../bases";

export type Path = readonly (string | number)[];

export const isObject = (v: unknown): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export const show = (path: Path): string =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");

export function get(doc: Json, path: Path): Json | undefined {
  let cur: Json | undefined = doc;
  for (const key of path) {
    if (Array.isArray(cur) && typeof key === "number") cur = cur[key];
    else if (isObject(cur) && typeof key === "string") cur = cur[key];
    else return undefined;
  }
  return cur;
}

/**
 * Sets `value` at `path`, replacing what is not an object on the way. Own properties only:
 * `__proto__` must become a key, not the object's prototype.
 */
export function set(doc: JsonObject, path: Path, value: Json): void {
  let cur: Json = doc;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    const container: Json[] | JsonObject = cur as Json[] | JsonObject;
    let next = (container as Record<string | number, Json>)[key];
    if (!isObject(next) && !Array.isArray(next)) {
      next = typeof path[i + 1] === "number" ? [] : {};
      define(container, key, next);
    }
    cur = next;
  }
  define(cur as JsonObject, path[path.length - 1], value);
}

function define(container: Json[] | JsonObject, key: string | number, value: Json): void {
  Object.defineProperty(container, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

export function remove(doc: JsonObject, path: Path): boolean {
  const parent = get(doc, path.slice(0, -1));
  const key = path[path.length - 1];
  if (Array.isArray(parent) && typeof key === "number" && key < parent.length) {
    parent.splice(key, 1);
    return true;
  }
  if (isObject(parent) && typeof key === "string" && Object.hasOwn(parent, key)) {
    delete parent[key];
    return true;
  }
  return false;
}

/** Every path of an object member in `doc` (arrays entered), for "somewhere in the spec". */
export function objectPaths(doc: Json, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (isObject(doc)) {
    out.push(prefix);
    for (const [k, v] of Object.entries(doc)) out.push(...objectPaths(v, [...prefix, k]));
  } else if (Array.isArray(doc)) {
    doc.forEach((v, i) => out.push(...objectPaths(v, [...prefix, i])));
  }
  return out;
}

/** Every leaf (non-container) path in `doc`. */
export function leafPaths(doc: Json, prefix: Path = []): Path[] {
  if (isObject(doc)) return Object.entries(doc).flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
  if (Array.isArray(doc)) return doc.flatMap((v, i) => leafPaths(v, [...prefix, i]));
  return [prefix];
}
