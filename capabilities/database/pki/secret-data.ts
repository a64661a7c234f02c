/** Reading PEM text out of a Secret's data, and the memo that spares a steady pass the parsing. */
import { KubeObject } from "../cluster/cluster";
import type { KeyPair } from "./certificates";

export const decoded = (secret: KubeObject | undefined, key: string): string | undefined => {
  const value = (secret?.data as Record<string, string | undefined> | undefined)?.[key];
  return value ? Buffer.from(value, "base64").toString("utf8") : undefined;
};

export const pairIn = (
  secret: KubeObject | undefined,
  certKey: string,
  keyKey: string,
): Partial<KeyPair> => ({ cert: decoded(secret, certKey), key: decoded(secret, keyKey) });

interface Node {
  next: WeakMap<object, Node>;
  result?: { key: string; value: unknown };
}

const root: Node = { next: new WeakMap() };

/**
 * `compute()`, or what it gave before for the same stored objects and `key`: the read cache
 * hands out the same Secret objects until they change, so a pass over sound material parses and
 * verifies nothing. Weak: replaced Secrets take their entries with them. `key` must name
 * everything else the result depends on (the names, the day, the CA).
 */
export function memoized<T>(objects: readonly object[], key: string, compute: () => T): T {
  let node = root;
  for (const object of objects) {
    let next = node.next.get(object);
    if (!next) {
      next = { next: new WeakMap() };
      node.next.set(object, next);
    }
    node = next;
  }
  if (node.result?.key === key) return node.result.value as T;
  const value = compute();
  node.result = { key, value };
  return value;
}
