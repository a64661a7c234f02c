/**
 * Wrappers around every write of a Cluster, built from CLUSTER_METHODS so that no write method is
 * ever left out (lib/fence.ts):
 * - the leadership guard: a reconcile still running when leadership was lost cannot write on
 *   (its next write throws instead), so a deposed leader never acts after a standby took over;
 * - the write counter: a reconcile pass reports the writes it really made, counted at the port.
 */
import { aroundWrites, fenceWrites } from "../lib/fence";
import { CLUSTER_METHODS, Cluster } from "./cluster";

/** Writes fail with NotLeaderError unless this process leads at the moment of the call. */
export const guardWrites = (cluster: Cluster, isLeader: () => boolean): Cluster =>
  fenceWrites(cluster, CLUSTER_METHODS, isLeader);

/** A Cluster that counts the writes that succeeded through it. */
export function countWrites(cluster: Cluster): { cluster: Cluster; writes: () => number } {
  let writes = 0;
  const counted = aroundWrites(cluster, CLUSTER_METHODS, async (_method, write) => {
    const result = await write();
    writes++;
    return result;
  });
  return { cluster: counted, writes: () => writes };
}
