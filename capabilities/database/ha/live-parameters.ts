/**
 * The managed parameters (and primary_conninfo) applied live on every answering instance: ALTER
 * SYSTEM and a reload, once per pod and set, and at once for the standbys after a promotion.
 */
import { isTerminating, podIP } from "../cluster/cluster";
import { errorMessage } from "../lib/errors";
import { instanceParameters } from "../specs/postgresql-conf";
import { InstanceView } from "./decide";
import { DatabaseMemory } from "./memory";
import { ProbeRecord } from "../instance/monitor";
import { HaStepInput, announceOnce } from "./step-input";
import { mountsTls } from "../instance/targets";

/**
 * Right after a failover or switchover, in the same pass: every standby gets primary_conninfo
 * naming the new primary, so its WAL receiver reconnects now rather than when a connection to
 * the old one times out. Errors are reported by the next pass, which applies again.
 */
export async function followNewPrimary(
  step: HaStepInput,
  primary: string,
  instances: InstanceView[],
  records: Map<string, ProbeRecord>,
  memory: Pick<DatabaseMemory, "parameters" | "announced">,
): Promise<void> {
  await applyParameters(step, primary, instances, records, memory);
}

/**
 * ALTER SYSTEM + reload on every answering instance whose pod has not yet got its current set
 * (remembered per pod UID, so a steady state makes no SQL writes).
 */
export async function applyParameters(
  step: HaStepInput,
  primary: string,
  instances: InstanceView[],
  records: Map<string, ProbeRecord>,
  memory: Pick<DatabaseMemory, "parameters" | "announced">,
): Promise<{ error?: string }> {
  const errors: string[] = [];
  for (const view of instances) {
    const target = configurable(step, view, records);
    if (!target) continue;
    const desired = instanceParameters(step.input, view.name, primary, target.tls);
    const wanted = JSON.stringify(desired);
    if (memory.parameters.applied.get(target.uid) === wanted) continue;
    try {
      const { pendingRestart, heldBack } = await applyOn(step, view.name, target.ip, desired);
      // A value held back is asked for again at the next pass, until it can be written.
      if (heldBack) errors.push(`${view.name}: ${heldBack}`);
      else memory.parameters.applied.set(target.uid, wanted);
      memory.parameters.pendingAfterReload.set(target.uid, {
        pending: pendingRestart,
        postmasterStartTime: records.get(view.name)?.probe?.postmasterStartTime,
      });
    } catch (err) {
      // Never fatal: a failing instance (or a bad value) must not stop failover or the others.
      errors.push(`${view.name}: ${errorMessage(err)}`);
    }
  }
  const error = errors.length ? errors.join("; ") : undefined;
  if (error) await announceOnce(memory, step, "Warning", "ParametersNotApplied", error);
  return { error };
}

/** Applies the set on one instance; returns what it left pending restart, and what it held back. */
async function applyOn(
  step: HaStepInput,
  instance: string,
  ip: string,
  desired: Record<string, string>,
): Promise<{ pendingRestart: string[]; heldBack?: string }> {
  // ALTER SYSTEM: only a superuser may (ADR 0019).
  const result = await step.sql.applyParameters(step.target(ip, "superuser"), desired);
  if (result.changed) {
    const pending = result.pendingRestart.length
      ? `; pending restart: ${result.pendingRestart.join(", ")}`
      : "";
    await step.cluster.recordEvent(step.db, {
      type: "Normal",
      reason: "ParametersApplied",
      message: `${instance}: parameters reloaded${pending}`,
    });
  }
  return { pendingRestart: result.pendingRestart, heldBack: result.heldBack };
}

/** The pod of an instance that answers SQL and is not going away, with its address. */
function configurable(
  step: HaStepInput,
  view: InstanceView,
  records: Map<string, ProbeRecord>,
): { uid: string; ip: string; tls: boolean } | undefined {
  const pod = step.pods.find(p => p.metadata?.name === view.name);
  const ip = podIP(pod);
  if (!pod || !ip || isTerminating(pod) || !records.get(view.name)?.ok) return undefined;
  return { uid: pod.metadata?.uid ?? "", ip, tls: mountsTls(pod) };
}
