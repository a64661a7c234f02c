/**
 * Every running instance's replication passfile holds the superuser password PostgreSQL has. The
 * entrypoint writes it from the Secret at each start; after a rotation (reconcile/
 * rotate-passwords.ts) the running instances get it over SQL, so a WAL receiver that reconnects
 * (after a failover, a network blip) logs in with no restart. Written once per pod and password
 * (remembered per pod UID), so a steady state makes no SQL writes.
 */
import { KubeObject, isTerminating, podIP } from "../cluster/cluster";
import { errorMessage } from "../lib/errors";
import { passwordFingerprint } from "../lib/scram";
import type { DatabaseMemory } from "./memory";
import type { ProbeRecord } from "../instance/monitor";
import { HaStepInput, announceOnce } from "./step-input";

/** Pods not going away whose last probe, of this very pod, answered. */
function answering(pods: KubeObject[], records: Map<string, ProbeRecord>) {
  return pods.flatMap(pod => {
    const uid = pod.metadata?.uid ?? "";
    const ip = podIP(pod);
    const record = records.get(pod.metadata?.name ?? "");
    return ip && !isTerminating(pod) && record?.uid === uid && record.ok ? [{ pod, uid, ip }] : [];
  });
}

export async function syncPassfiles(
  step: HaStepInput,
  records: Map<string, ProbeRecord>,
  memory: Pick<DatabaseMemory, "passfiles" | "announced">,
): Promise<void> {
  const wanted = passwordFingerprint(step.password);
  const errors: string[] = [];
  for (const { pod, uid, ip } of answering(step.pods, records)) {
    if (memory.passfiles.get(uid) === wanted) continue;
    try {
      await step.sql.writePassfile(step.target(ip, "superuser"));
      memory.passfiles.set(uid, wanted);
    } catch (err) {
      errors.push(`${pod.metadata?.name}: ${errorMessage(err)}`);
    }
  }
  if (errors.length > 0)
    await announceOnce(
      memory,
      step,
      "Warning",
      "PassfileNotWritten",
      `The replication passfile could not get the current superuser password on ${errors.join("; ")}`,
    );
}
