/**
 * Wrappers around every write of a Cluster, built from CLUSTER_METHODS so that no write method is
 * ever left out:
 * - the leadership guard: a reconcile still running when leadership was lost cannot write on
 *   (its next write throws instead), so a deposed leader never acts after a standby took over;
 * - the write counter: a reconcile pass reports the writes it really made, counted at the port.
 */
import { CLUSTER_METHODS, Cluster, WriteMethod } from "./cluster";

type Write = (method: WriteMethod, write: () => Promise<unknown>) => Promise<unknown>;

/** A Cluster whose writes go through `around`; reads pass straight through. */
function aroundWrites(cluster: Cluster, around: Write): Cluster {
  const wrapped: Record<string, unknown> = {};
  for (const [method, access] of Object.entries(CLUSTER_METHODS)) {
    const call = (
      cluster[method as keyof Cluster] as (...args: unknown[]) => Promise<unknown>
    ).bind(cluster);
    wrapped[method] =
      access === "write"
        ? (...args: unknown[]) => around(method as WriteMethod, () => call(...args))
        : call;
  }
  return wrapped as unknown as Cluster;
}

export class NotLeaderError extends Error {
  constructor(operation: string) {
    super(`not the leader any more: ${operation} refused`);
    this.name = "NotLeaderError";
  }
}

/** Writes fail with NotLeaderError unless this process leads at the moment of the call. */
export const guardWrites = (cluster: Cluster, isLeader: () => boolean): Cluster =>
  aroundWrites(cluster, (method, write) =>
    isLeader() ? write() : Promise.reject(new NotLeaderError(method)),
  );

/** A Cluster that counts the writes that succeeded through it. */
export function countWrites(cluster: Cluster): { cluster: Cluster; writes: () => number } {
  let writes = 0;
  const counted = aroundWrites(cluster, async (_method, write) => {
    const result = await write();
    writes++;
    return result;
  });
  return { cluster: counted, writes: () => writes };
}
