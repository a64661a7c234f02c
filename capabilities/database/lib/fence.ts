/**
 * Wrappers around the write methods of a port, built from the port's own read/write map so that
 * no write method is ever left out (a map that misses a method does not compile: each port
 * declares its map with `satisfies AccessMap<Port>`).
 *
 * The fence is how leadership is enforced by construction (ADR 0006): a reconcile still running
 * when leadership was lost cannot write on, through the Kubernetes API (cluster/write-wrappers.ts)
 * or over SQL (instance/guard-sql.ts), because its next write throws instead.
 */

/** Whether a method of a port only reads, or changes something. */
export type Access = "read" | "write";

/** Every method of a port `T`, read or write. */
export type AccessMap<T> = { readonly [K in keyof T]: Access };

type Around = (method: string, write: () => Promise<unknown>) => Promise<unknown>;

/** `target` with its writes passed through `around`; reads go straight through. */
export function aroundWrites<T extends object>(
  target: T,
  methods: AccessMap<T>,
  around: Around,
): T {
  const wrapped: Record<string, unknown> = {};
  for (const [method, access] of Object.entries(methods) as [keyof T & string, Access][]) {
    if (typeof target[method] !== "function") continue; // a stand-in leaving out what a test never calls
    // Looked up at each call, so the wrapper always calls what the target holds then.
    const call = (...args: unknown[]) =>
      (target[method] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
    wrapped[method] =
      access === "write" ? (...args: unknown[]) => around(method, () => call(...args)) : call;
  }
  return wrapped as T;
}

export class NotLeaderError extends Error {
  constructor(operation: string) {
    super(`not the leader any more: ${operation} refused`);
    this.name = "NotLeaderError";
  }
}

/** Writes fail with NotLeaderError unless this process leads at the moment of the call. */
export const fenceWrites = <T extends object>(
  target: T,
  methods: AccessMap<T>,
  isLeader: () => boolean,
): T =>
  aroundWrites(target, methods, (method, write) =>
    isLeader() ? write() : Promise.reject(new NotLeaderError(method)),
  );
