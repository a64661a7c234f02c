/**
 * The failover target chosen again once the old primary is fenced, from two rounds of probes:
 * nothing can reach the standbys any more, so their positions are final once they stop moving.
 */
import { podIP, isTerminating } from "../cluster/cluster";
import { InstanceView, failoverCandidate, stillMoving } from "./decide";
import { DatabaseMemory } from "./memory";
import { HaStepInput, announceOnce, haInput } from "./step-input";

/** Probe timeout once the primary is fenced: idle standbys answer at once, or are not eligible. */
const FRESH_PROBE_TIMEOUT_MS = 3000;
/**
 * Between the two rounds of probes after the fence. With the primary fenced no standby receives
 * anything, so a position that still moves is a standby replaying WAL it already has (one that
 * just restarted: until it streams again, it reports its replay position, short of what is on its
 * disk). Comparing such a position would promote a standby with less WAL than another.
 */
const SETTLE_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

/**
 * failoverCandidate on probes taken now (the old primary is fenced). A standby that does not
 * answer now is not eligible; a refusal is announced once.
 */
export async function failoverTargetNow(
  step: HaStepInput,
  instances: InstanceView[],
  memory: Pick<DatabaseMemory, "announced">,
  preferred: string,
): Promise<{ to: string } | { refused: string }> {
  const first = await Promise.all(instances.map(view => probedNow(step, view)));
  await sleep(step.ha.settleMs ?? SETTLE_MS);
  const fresh = await Promise.all(instances.map(view => probedNow(step, view)));
  const moving = stillMoving(first, fresh);
  const choice =
    moving.length > 0
      ? { refused: `${moving.join(", ")} still replaying WAL (positions not settled)` }
      : failoverCandidate(haInput(step, fresh), preferred);
  if ("refused" in choice)
    await announceOnce(
      memory,
      step,
      "Warning",
      "FailoverWaiting",
      `${step.primary} is fenced, but ${choice.refused}; waiting before promoting anyone`,
    );
  return choice;
}

async function probedNow(step: HaStepInput, view: InstanceView): Promise<InstanceView> {
  const pod = step.pods.find(p => p.metadata?.name === view.name);
  const ip = podIP(pod);
  if (view.name === step.primary || !pod || !ip || isTerminating(pod)) return view;
  const target = step.target(ip);
  try {
    const probe = await step.sql.probeInstance(target, FRESH_PROBE_TIMEOUT_MS);
    return { ...view, sql: { ok: true, failures: 0, probe } };
  } catch {
    return { ...view, sql: { ok: false, failures: (view.sql?.failures ?? 0) + 1 } };
  }
}
