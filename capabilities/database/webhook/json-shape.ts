/**
 * How deep and how large a parsed JSON value is, measured without recursion (the point is to
 * refuse values that would overflow a recursive walk) and without walking past the limits; and
 * whether it holds a key JavaScript objects cannot keep.
 */
export interface ShapeLimits {
  maxDepth: number;
  maxNodes: number;
}

/**
 * JSON.parse keeps `"__proto__"` as an own key, but every copy of the object (Pepr's ramda clone
 * of the request, spreads, merges) turns it into the prototype: the key vanishes unjudged, and
 * Pepr's mutate patch even removes it from what is stored. No Kubernetes field, label key or
 * PostgreSQL parameter is named so.
 */
export const UNKEEPABLE_KEY = "__proto__";

export type ShapeProblem =
  | { kind: "depth"; limit: number }
  | { kind: "nodes"; limit: number }
  | { kind: "key"; key: string; path: string[] }
  | undefined;

interface Visit {
  value: unknown;
  depth: number;
  /** Where the value hangs: its parent's visit and its key there (the path is rebuilt only on a problem). */
  parent?: Visit;
  key?: string;
}

function pathOf(visit: Visit): string[] {
  const path: string[] = [];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) path.unshift(v.key);
  return path;
}

/** The first problem of `value`, or undefined. Stops as soon as one is found. */
export function shapeProblem(value: unknown, limits: ShapeLimits): ShapeProblem {
  const stack: Visit[] = [{ value, depth: 1 }];
  let nodes = 0;
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (++nodes > limits.maxNodes) return { kind: "nodes", limit: limits.maxNodes };
    if (current === null || typeof current !== "object") continue;
    if (visit.depth > limits.maxDepth) return { kind: "depth", limit: limits.maxDepth };
    if (Object.hasOwn(current, UNKEEPABLE_KEY)) {
      return { kind: "key", key: UNKEEPABLE_KEY, path: [...pathOf(visit), UNKEEPABLE_KEY] };
    }
    const depth = visit.depth + 1;
    const entries = Array.isArray(current) ? current.entries() : Object.entries(current);
    for (const [key, child] of entries) {
      stack.push({ value: child, depth, parent: visit, key: String(key) });
    }
  }
  return undefined;
}
