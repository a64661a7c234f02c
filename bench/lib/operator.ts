/**
 * Stopping a bench's `pepr dev` for good. The harness stops pepr dev's process group with
 * SIGTERM and waits for port 3000 to be free, but the module pepr dev forked answers SIGTERM by
 * stepping down as leader and can keep running, an orphan watching the cluster into the next
 * bench (seen after a fuzz smoke run). What is left of the group it started is killed, by its id.
 */
import type { Operator } from "../../test/integration/harness/operator";

export async function stopOperator(operator: Operator): Promise<void> {
  const group = operator.pid; // pepr dev leads its own process group (spawned detached)
  await operator.stop();
  if (group === undefined) return;
  try {
    process.kill(-group, "SIGKILL");
  } catch {
    // nothing of the group is left
  }
}
