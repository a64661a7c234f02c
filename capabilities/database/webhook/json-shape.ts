/**
 * How deep and how large a parsed JSON value is, measured without recursion (the point is to
 * refuse values that would overflow a recursive walk) and without walking past the limits.
 */
export interface ShapeLimits {
  maxDepth: number;
  maxNodes: number;
}

export type ShapeProblem =
  | { kind: "depth"; limit: number }
  | { kind: "nodes"; limit: number }
  | undefined;

/** The first limit `value` exceeds, or undefined. Stops as soon as one is exceeded. */
export function shapeProblem(value: unknown, limits: ShapeLimits): ShapeProblem {
  const stack: [unknown, number][] = [[value, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (++nodes > limits.maxNodes) return { kind: "nodes", limit: limits.maxNodes };
    if (current === null || typeof current !== "object") continue;
    if (depth > limits.maxDepth) return { kind: "depth", limit: limits.maxDepth };
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return undefined;
}
