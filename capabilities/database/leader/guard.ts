/**
 * Fencing at the last moment: a Cluster whose writes fail unless this process still leads. The
 * controller stops starting reconciles when leadership is lost, but one already running could
 * otherwise keep writing after a standby took over; with this guard its next write throws
 * instead. Reads pass through. Methods not listed here (added later) pass through too: code
 * that adds a write method checks `isLeader()` itself or lists it here.
 */
import { Cluster } from "../reconcile/cluster";

export const GUARDED_WRITES = new Set<string>([
  "apply",
  "delete",
  "patchLabels",
  "resizeClaim",
  "patchStatus",
  "removeFinalizer",
  "removeAnnotation",
  "recordEvent",
]);

export class NotLeaderError extends Error {
  constructor(operation: string) {
    super(`not the leader any more: ${operation} refused`);
    this.name = "NotLeaderError";
  }
}

export function guardWrites<C extends Cluster>(cluster: C, isLeader: () => boolean): C {
  return new Proxy(cluster, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || !GUARDED_WRITES.has(prop)) return value.bind(target);
      return (...args: unknown[]) => {
        if (!isLeader()) return Promise.reject(new NotLeaderError(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
