/**
 * Repairs the replicas stuck-replica.ts finds stuck: leaves the repair marker in the data
 * directory, then deletes the pod (normal grace: a clean shutdown, which pg_rewind needs). The
 * StatefulSet recreates it and its entrypoint rewinds the data onto the primary's timeline, or
 * clones the primary again when there is nothing to rewind or pg_rewind fails. The replica was
 * serving nothing (serving.ts took it out of `<db>-ro`), and a clone replaces the old data only
 * once complete.
 */
import { podIP, refOf } from "../cluster/cluster";
import { errorMessage } from "../lib/errors";
import type { InstanceView } from "./decide";
import type { DatabaseMemory } from "./memory";
import type { HaStepInput } from "./step-input";
import { announceOnce } from "./step-input";
import { replicasToRepair, stuckReason } from "./stuck-replica";

/** Repairs what is due; returns how soon to look again when a replica is on its way there. */
export async function repairStuckReplicas(
  step: HaStepInput,
  views: InstanceView[],
  memory: Pick<DatabaseMemory, "repairs" | "announced">,
): Promise<number | undefined> {
  const now = step.now().getTime();
  const { repair, lookAgainMs } = replicasToRepair(views, step.primary, memory.repairs, now);
  for (const view of repair) {
    const pod = step.pods.find(p => p.metadata?.uid === view.pod?.uid);
    const ip = podIP(pod);
    if (!pod || !ip) continue;
    const reason = stuckReason(view, step.primary);
    try {
      await step.sql.requestRepair(step.target(ip));
    } catch (err) {
      // Tried again at the next pass; one Event per distinct failure.
      await announceOnce(
        memory,
        step,
        "Warning",
        "ReplicaRepairFailed",
        `${reason}; leaving the repair marker failed: ${errorMessage(err)}`,
      );
      continue;
    }
    memory.repairs.repairedAt.set(view.name, now);
    memory.repairs.notFollowingSince.delete(view.pod!.uid);
    await step.cluster.delete(refOf(pod), { uid: pod.metadata?.uid });
    await step.cluster.recordEvent(step.db, {
      type: "Warning",
      reason: "ReplicaRepair",
      message: `${reason}: its pod restarts to rewind onto ${step.primary}'s timeline, or to clone it again`,
    });
  }
  return lookAgainMs;
}
