/**
 * RFC 6902 JSON Patch, enough to apply what a mutating webhook answers (add, remove, replace,
 * move, copy, test) to a copy of the object, as the apiserver does before calling the validating
 * webhook: direct mode sends Validate what Mutate made of the object.
 */

export interface Operation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === "object" && v !== null;

/** A deep copy through JSON, which keeps a "__proto__" member a member. */
const clone = (v: unknown): unknown =>
  v === undefined ? undefined : JSON.parse(JSON.stringify(v));

/** RFC 6901: "/a/b~1c" → ["a", "b/c"]. */
function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new Error(`bad JSON pointer ${path}`);
  return path
    .slice(1)
    .split("/")
    .map(t => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function parentOf(doc: unknown, tokens: string[]): [Container, string] {
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (!isContainer(cur)) throw new Error(`no container at ${t}`);
    cur = Array.isArray(cur) ? cur[Number(t)] : cur[t];
  }
  if (!isContainer(cur)) throw new Error("no parent container");
  return [cur, tokens[tokens.length - 1]];
}

function read(doc: unknown, path: string): unknown {
  return pointer(path).reduce<unknown>((v, t) => {
    if (!isContainer(v)) throw new Error(`nothing at ${path}`);
    return Array.isArray(v) ? v[Number(t)] : v[t];
  }, doc);
}

function setMember(parent: Container, key: string, value: unknown, insert: boolean): void {
  if (Array.isArray(parent)) {
    const i = key === "-" ? parent.length : Number(key);
    parent.splice(i, insert ? 0 : 1, value);
    return;
  }
  // defineProperty: a "__proto__" member must stay a member.
  Object.defineProperty(parent, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function removeMember(parent: Container, key: string): void {
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
}

function applyOne(doc: unknown, o: Operation): unknown {
  const tokens = pointer(o.path);
  const value = o.op === "move" || o.op === "copy" ? read(doc, o.from ?? "") : o.value;
  if (o.op === "test") {
    if (JSON.stringify(read(doc, o.path)) !== JSON.stringify(value)) throw new Error("test failed");
    return doc;
  }
  if (o.op === "move") applyOne(doc, { op: "remove", path: o.from ?? "" });
  if (tokens.length === 0) return o.op === "remove" ? undefined : clone(value);
  const [parent, key] = parentOf(doc, tokens);
  if (o.op === "remove") removeMember(parent, key);
  else if (["add", "replace", "move", "copy"].includes(o.op))
    setMember(parent, key, clone(value), o.op !== "replace");
  else throw new Error(`unknown patch op ${o.op}`);
  return doc;
}

/** `doc` (not modified) with `ops` applied; throws on a patch that does not apply. */
export function applyPatch(doc: unknown, ops: readonly Operation[]): unknown {
  let out: unknown = clone(doc);
  for (const o of ops) out = applyOne(out, o);
  return out;
}
