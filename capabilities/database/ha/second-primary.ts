/**
 * A second instance that accepts writes while another is the primary: `pg_promote()` run by hand,
 * a restore tool, a bug. Two writable instances split the data, each holding writes the other
 * never sees. Only an operation makes a new primary, and it records it in status in the same
 * write that ends it, so outside an operation nobody but the primary may be out of recovery.
 *
 * Such an instance is fenced like a failed primary: its role label goes (out of `<db>-rw`) and
 * its pod is deleted with a 1 s grace period. The topology ConfigMap names the real primary, so it
 * comes back as that primary's standby and pg_rewind discards what only it wrote: the primary's
 * history is the one every other instance and every client of `<db>-rw` has.
 *
 * A probe must say so for SECOND_PRIMARY_CONFIRM_MS first: the status this pass works from could
 * be one write behind a promotion the operator itself just made (a cache that has not caught up),
 * and a fence on that view would take down the new primary.
 */
import { LABEL_ROLE } from "../api/names";
import { refOf } from "../cluster/cluster";
import { answering, type InstanceView } from "./decide";
import type { DatabaseMemory } from "./memory";
import type { HaStepInput } from "./step-input";

export const SECOND_PRIMARY_CONFIRM_MS = 3000;

/** Instances other than `primary` whose pod is up and whose last probe says writable. */
export function secondPrimaries(views: InstanceView[], primary: string): InstanceView[] {
  return views.filter(
    v => v.name !== primary && answering(v) && v.sql?.probe?.inRecovery === false,
  );
}

/**
 * Fences every second primary seen writable for SECOND_PRIMARY_CONFIRM_MS. Returns how soon to
 * look again when one was seen but not yet long enough (undefined otherwise).
 */
export async function fenceSecondPrimaries(
  step: HaStepInput,
  views: InstanceView[],
  memory: Pick<DatabaseMemory, "writableSince">,
): Promise<number | undefined> {
  const now = step.now().getTime();
  const seen = secondPrimaries(views, step.primary);
  const uids = new Set(seen.map(v => v.pod!.uid));
  for (const uid of memory.writableSince.keys())
    if (!uids.has(uid)) memory.writableSince.delete(uid);
  let lookAgainMs: number | undefined;
  for (const view of seen) {
    const uid = view.pod!.uid;
    const since = memory.writableSince.get(uid) ?? now;
    memory.writableSince.set(uid, since);
    const remaining = since + SECOND_PRIMARY_CONFIRM_MS - now;
    if (remaining > 0) {
      lookAgainMs = Math.min(lookAgainMs ?? Infinity, remaining);
      continue;
    }
    const pod = step.pods.find(p => p.metadata?.uid === uid);
    if (!pod) continue;
    if (pod.metadata?.labels?.[LABEL_ROLE] !== undefined)
      await step.cluster.patchLabels(refOf(pod), { [LABEL_ROLE]: null });
    await step.cluster.delete(refOf(pod), { uid, gracePeriodSeconds: 1 });
    memory.writableSince.delete(uid);
    await step.cluster.recordEvent(step.db, {
      type: "Warning",
      reason: "SecondPrimaryFenced",
      message: `${view.name} accepts writes, but ${step.primary} is the primary: its pod is deleted, and it comes back as a standby of ${step.primary}, rewinding away whatever only it wrote`,
    });
  }
  return lookAgainMs;
}
