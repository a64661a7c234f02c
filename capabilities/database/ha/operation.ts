/**
 * Failover and switchover as a small state machine recorded in status.operation before every
 * step, so an operator restarted midway resumes the same operation with the same target (and a
 * promotion is never repeated on another instance):
 *
 *   Fencing:   topology ConfigMap names the target (a returning old primary rejoins as a
 *              standby); the old primary loses its role label (out of `<db>-rw`); the pod to stop
 *              is recorded (`fencedPodUid`), then deleted, with a 1 s grace period on failover (a
 *              frozen postgres is killed) and the normal one on switchover (a clean shutdown ships
 *              all WAL to the standbys). The delete carries that UID as a precondition, so a
 *              successor pod is never deleted. Done when that pod is gone, replaced, or stopped
 *              for good; after FENCE_TIMEOUT_MS (node lost) only when the spec opts in
 *              (spec.failover.promoteAfterFenceTimeout), else it waits with a Warning.
 *   Choosing:  (failover only) every standby is probed again, the old primary being fenced, and
 *              the most advanced eligible one becomes the target (the one chosen before, on a
 *              tie); recorded with the step Promoting, after which the target never changes.
 *              While too few standbys answer, it waits; once the old primary's pod is back, the
 *              failover is cancelled instead and the old primary named again (nobody was
 *              promoted, so it has every acknowledged write).
 *   Promoting: pg_promote() on the target (a no-op when it is already out of recovery), role
 *              labels, status, Events. The HA step then repoints the other standbys in the same
 *              pass (live-parameters.ts; ADR 0007).
 *   Restarting: (Restart only) the primary's pod is recorded and stopped cleanly like a
 *              switchover's, and awaited back in place.
 *
 * Every change of status goes through the pass's DatabaseWriter as a value; nothing read from the
 * API (or the cache) is ever mutated. A deposed leader stops at its next write, whichever step it
 * is in: every write, through the API or over SQL, is fenced by leadership (reconcile/deps.ts).
 */
import { Database } from "../api/database";
import { DatabaseStatus } from "../api/database-schema";
import { ANNOTATION_SWITCHOVER, LABEL_ROLE } from "../api/names";
import { Cluster, KubeObject, isPodReady, isTerminating, podIP, refOf } from "../cluster/cluster";
import { DatabaseWriter } from "../cluster/database-writer";
import { errorMessage } from "../lib/errors";
import { BuildInput, buildTopologyConfigMap } from "../specs";
import type { TargetOf } from "../instance/targets";
import type { InstanceSql } from "../instance/types";

export type Operation = NonNullable<DatabaseStatus["operation"]>;

/** How long to wait for the old primary's pod to go before promoting anyway. */
const FENCE_TIMEOUT_MS = 60_000;
/** Poll interval while waiting for a step. */
const STEP_REQUEUE_MS = 500;
const PROMOTE_TIMEOUT_SECONDS = 60;
/** How long a chosen target may stay unpromotable (gone, not answering) before choosing again. */
const TARGET_LOST_MS = 60_000;
/** How long a primary restarted in place may take before failure handling takes over. */
const RESTART_TIMEOUT_MS = 300_000;
/**
 * How soon a failover that could not choose its target after the fence asks again: standbys
 * still replaying WAL they hold settle within a second or two, and every wait here is write
 * downtime (bench/failover: 2 s here was 2 s of a network cut's 13).
 */
const TARGET_RETRY_MS = 500;
/**
 * How long after its start a failover that can promote nobody is cancelled in favour of the old
 * primary, once that one's pod is back: long enough for standbys merely slow to answer.
 */
const CANCEL_AFTER_MS = 15_000;

export interface OperationContext {
  cluster: Cluster;
  sql: Pick<InstanceSql, "promote" | "checkpoint">;
  db: Database;
  input: BuildInput;
  pods: KubeObject[];
  /** How to reach the instance at an IP (instance/targets.ts). */
  target: TargetOf;
  now: () => Date;
  /** Applies a desired child when it differs from the live one (reconcile's apply path). */
  applyChild: (child: KubeObject) => Promise<void>;
  /** The pass's one writer of the Database. */
  writer: DatabaseWriter;
  onFailover?: (seconds: number) => void;
  /**
   * The failover target chosen again from probes taken once the old primary is fenced, with
   * `preferred` winning a tie; refused when too few eligible standbys answer to be sure.
   */
  failoverTarget?: (preferred: string) => Promise<{ to: string } | { refused: string }>;
  /** Records an Event once per distinct message: a wait repeats the same news every pass. */
  announceOnce?: (type: "Normal" | "Warning", reason: string, message: string) => Promise<void>;
}

export interface OperationResult {
  done: boolean;
  requeueAfterMs?: number;
  /** Once done: the new primary (a failover's target may have changed after the fence). */
  primary?: string;
}

const podNamed = (pods: KubeObject[], name: string): KubeObject | undefined =>
  pods.find(p => p.metadata?.name === name);

/** Records a new operation (phase, target) and announces it. */
export async function startOperation(
  ctx: OperationContext,
  op: Omit<Operation, "step" | "startedAt">,
): Promise<Operation> {
  const started: Operation = {
    ...op,
    step: op.type === "Restart" ? "Restarting" : "Fencing",
    startedAt: ctx.now().toISOString(),
  };
  await ctx.writer.update({ phase: PHASE[op.type], targetPrimary: op.to, operation: started });
  await ctx.cluster.recordEvent(ctx.db, {
    type: op.type === "Failover" ? "Warning" : "Normal",
    reason: `${op.type}Started`,
    message:
      op.type === "Restart"
        ? `Restarting the primary ${op.from} in place: ${op.reason ?? ""}`.trim()
        : `${op.type} from ${op.from} to ${op.to}: ${op.reason ?? ""}`.trim(),
  });
  return started;
}

const PHASE: Record<Operation["type"], NonNullable<DatabaseStatus["phase"]>> = {
  Failover: "FailingOver",
  Switchover: "SwitchingOver",
  Restart: "RestartingPrimary",
};

export async function runOperation(ctx: OperationContext, op: Operation): Promise<OperationResult> {
  if (op.type === "Restart") return restartInPlace(ctx, op);
  if (op.step === "Fencing") {
    const fenced = await fence(ctx, op);
    if (!fenced.done) return { done: false, requeueAfterMs: STEP_REQUEUE_MS };
    const target = await targetAfterFence(ctx, fenced.op);
    if ("refused" in target)
      return formerPrimaryBack(ctx, fenced.op)
        ? cancelFailover(ctx, fenced.op, target.refused)
        : { done: false, requeueAfterMs: TARGET_RETRY_MS };
    op = { ...fenced.op, to: target.to, step: "Promoting", stepStartedAt: ctx.now().toISOString() };
    // From here the target is fixed: a promotion may be under way.
    await ctx.writer.update({ operation: op, targetPrimary: op.to });
  }
  return promote(ctx, op);
}

/**
 * The instance to promote, chosen again now that no write can reach any standby. The probes the
 * decision used are up to a probe interval old: a commit acknowledged since then may be only on
 * another standby, and promoting the one chosen before would lose it. A switchover keeps its
 * target: the old primary shut down cleanly, after every streaming standby had all of its WAL.
 * Undefined (wait, and ask again) when too few standbys answer to be sure.
 */
async function targetAfterFence(
  ctx: OperationContext,
  op: Operation,
): Promise<{ to: string } | { refused: string }> {
  if (op.type !== "Failover" || !ctx.failoverTarget) return { to: op.to };
  const choice = await ctx.failoverTarget(op.to);
  if ("refused" in choice || choice.to === op.to) return choice;
  await ctx.applyChild(buildTopologyConfigMap({ ...ctx.input, primary: choice.to }));
  await ctx.cluster.recordEvent(ctx.db, {
    type: "Normal",
    reason: "FailoverRetargeted",
    message: `${choice.to} received more WAL than ${op.to} before ${op.from} was fenced; promoting ${choice.to}`,
  });
  return choice;
}

/**
 * The old primary's pod is back (the StatefulSet recreated it after the fence) while no standby
 * can be promoted, and has been for CANCEL_AFTER_MS since the failover started.
 */
function formerPrimaryBack(ctx: OperationContext, op: Operation): boolean {
  const pod = podNamed(ctx.pods, op.from);
  return (
    op.type === "Failover" &&
    !!pod &&
    !isTerminating(pod) &&
    pod.metadata?.uid !== op.fencedPodUid &&
    ctx.now().getTime() - Date.parse(op.startedAt) >= CANCEL_AFTER_MS
  );
}

/**
 * Gives the old primary its role back. Nobody was promoted (the step is still Fencing), so the
 * old primary's data holds every write it acknowledged, more than any standby. Waiting instead
 * would hold the whole Database down as long as too few standbys answer: after a full outage,
 * the old primary's entrypoint waits for the named target, which may never come back (its node
 * is gone) or come back unable to be promoted. Named again in the topology, the old primary
 * starts as the primary it was (entrypoint.sh), with no rewind.
 */
async function cancelFailover(
  ctx: OperationContext,
  op: Operation,
  refused: string,
): Promise<OperationResult> {
  await ctx.applyChild(buildTopologyConfigMap({ ...ctx.input, primary: op.from }));
  await ctx.writer.update({ operation: undefined, targetPrimary: op.from, phase: "Degraded" });
  await ctx.cluster.recordEvent(ctx.db, {
    type: "Warning",
    reason: "FailoverCancelled",
    message: `${op.from} was fenced, but ${refused}; nobody was promoted, so ${op.from}, whose pod is back, is the primary again (it holds every acknowledged write)`,
  });
  return { done: true, primary: op.from };
}

async function fence(
  ctx: OperationContext,
  op: Operation,
): Promise<{ done: boolean; op: Operation }> {
  await ctx.applyChild(buildTopologyConfigMap({ ...ctx.input, primary: op.to }));
  const old = podNamed(ctx.pods, op.from);
  if (!old) return { done: true, op };
  if (old.metadata?.labels?.[LABEL_ROLE] !== undefined)
    await ctx.cluster.patchLabels(refOf(old), { [LABEL_ROLE]: null });
  if (op.fencedPodUid === undefined) return { done: false, op: await recordAndStop(ctx, op, old) };
  if (old.metadata?.uid !== op.fencedPodUid || stoppedForGood(old)) return { done: true, op };
  // Recorded but not deleted (the operator stopped in between): delete it now.
  if (!isTerminating(old)) await stopPod(ctx, op, old);
  if (!fenceGaveUp(ctx, op)) return { done: false, op };
  const promoteAnyway = ctx.input.spec.failover.promoteAfterFenceTimeout;
  await announceFenceTimeout(ctx, op, promoteAnyway);
  return { done: promoteAnyway, op };
}

/**
 * Nothing of the old primary can run in this pod any more, seconds before the API drops it
 * (volumes, sandbox and status still to clean up), when either:
 * - its phase is terminal (Failed, Succeeded): the kubelet writes it only after it killed every
 *   container and its runtime confirmed none runs, and never starts one again in such a pod. A
 *   crash-looping postgres, waiting for its next start when the fence deletes the pod, has no
 *   container status that ended after the request: this is how its stop shows (ADR 0037);
 * - it is being deleted and every container ended after the deletion was requested: the kubelet
 *   never restarts containers of a terminating pod. A container that ended before the request
 *   (a crash) may have been restarted since: not enough.
 */
export function stoppedForGood(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase === "Failed" || phase === "Succeeded") return true;
  const meta = pod.metadata as
    | { deletionTimestamp?: string | Date; deletionGracePeriodSeconds?: number }
    | undefined;
  if (!meta?.deletionTimestamp) return false;
  const requested =
    new Date(meta.deletionTimestamp).getTime() - (meta.deletionGracePeriodSeconds ?? 0) * 1000;
  const statuses =
    (pod.status as { containerStatuses?: { state?: { terminated?: { finishedAt?: string } } }[] })
      ?.containerStatuses ?? [];
  return (
    statuses.length > 0 &&
    statuses.every(c => {
      const finished = c.state?.terminated?.finishedAt;
      return finished !== undefined && Date.parse(finished) >= requested;
    })
  );
}

/**
 * Records the pod to stop, then stops it. Recorded before the delete: a restarted operator then
 * knows which pod it meant to stop.
 */
async function recordAndStop(
  ctx: OperationContext,
  op: Operation,
  pod: KubeObject,
): Promise<Operation> {
  const stopping: Operation = { ...op, fencedPodUid: pod.metadata?.uid };
  await ctx.writer.update({ operation: stopping });
  await stopPod(ctx, stopping, pod);
  return stopping;
}

/**
 * Deletes the recorded pod of the old primary, and only that pod (UID precondition): with a 1 s
 * grace period on failover, else cleanly, after a checkpoint.
 */
async function stopPod(ctx: OperationContext, op: Operation, pod: KubeObject): Promise<void> {
  if (op.type !== "Failover") await checkpointQuietly(ctx, pod);
  await ctx.cluster.delete(refOf(pod), {
    uid: op.fencedPodUid,
    ...(op.type === "Failover" ? { gracePeriodSeconds: 1 } : {}),
  });
}

const fenceGaveUp = (ctx: OperationContext, op: Operation): boolean =>
  ctx.now().getTime() - Date.parse(op.startedAt) >= FENCE_TIMEOUT_MS;

/**
 * The old primary's pod outlived its deletion by FENCE_TIMEOUT_MS: its node does not answer, so
 * nothing confirms postgres stopped, and clients or standbys connected to it may still write
 * there. Promoting now risks two primaries: only when the spec opts in. Otherwise the failover
 * waits for the pod to go (the node back, or a person who made sure it is down force-deleting it).
 */
async function announceFenceTimeout(
  ctx: OperationContext,
  op: Operation,
  promoteAnyway: boolean,
): Promise<void> {
  const stuck = `${op.from}'s pod is still there ${FENCE_TIMEOUT_MS / 1000} s after it was deleted (its node does not answer, so nothing confirms postgres stopped)`;
  if (promoteAnyway) {
    await ctx.cluster.recordEvent(ctx.db, {
      type: "Warning",
      reason: "FenceTimeout",
      message: `${stuck}; promoting ${op.to} anyway (spec.failover.promoteAfterFenceTimeout): ${op.from} is out of <db>-rw, but connections that still reach it can write to it`,
    });
    return;
  }
  await (ctx.announceOnce ?? recordEventOf(ctx))(
    "Warning",
    "FenceTimeout",
    `${stuck}; not promoting ${op.to} while ${op.from} may still accept writes. Once its node is surely down, force-delete the pod (kubectl delete pod ${op.from} --force --grace-period=0) and the failover goes on; or set spec.failover.promoteAfterFenceTimeout to promote in this case`,
  );
}

const recordEventOf =
  (ctx: OperationContext) =>
  (type: "Normal" | "Warning", reason: string, message: string): Promise<void> =>
    ctx.cluster.recordEvent(ctx.db, { type, reason, message });

/** A checkpoint before a clean shutdown makes the shutdown (and so the switchover) faster. */
async function checkpointQuietly(ctx: OperationContext, pod: KubeObject): Promise<void> {
  const ip = podIP(pod);
  if (!ip) return;
  try {
    await ctx.sql.checkpoint(ctx.target(ip));
  } catch {
    // Only an optimisation: the shutdown checkpoints anyway.
  }
}

async function promote(ctx: OperationContext, op: Operation): Promise<OperationResult> {
  const target = podNamed(ctx.pods, op.to);
  const ip = target && !isTerminating(target) ? podIP(target) : undefined;
  if (!target || !ip)
    return targetLost(ctx, op, `${op.to}'s pod is ${target ? "going away" : "gone"}`);
  try {
    await ctx.sql.promote(ctx.target(ip), PROMOTE_TIMEOUT_SECONDS);
  } catch (err) {
    const lost = await targetLost(ctx, op, `promoting ${op.to} fails: ${errorMessage(err)}`);
    if (lost.abandoned) return lost;
    throw err;
  }
  if (target.metadata?.labels?.[LABEL_ROLE] !== "primary")
    await ctx.cluster.patchLabels(refOf(target), { [LABEL_ROLE]: "primary" });
  await complete(ctx, op);
  return { done: true, primary: op.to };
}

/**
 * The target cannot be promoted (pod gone, or it does not answer). Within TARGET_LOST_MS of the
 * step's start: wait. After: the operation is abandoned with a Warning, and the next pass decides
 * again from what it sees, as after any failure of the primary (the old primary stays recorded
 * as current, so it counts as failed). A target promoted just before it was lost is then the most
 * advanced candidate, on its new timeline, and is chosen again if it comes back first.
 */
async function targetLost(
  ctx: OperationContext,
  op: Operation,
  why: string,
): Promise<OperationResult & { abandoned?: boolean }> {
  const waitedMs = ctx.now().getTime() - Date.parse(op.stepStartedAt ?? op.startedAt);
  if (waitedMs < TARGET_LOST_MS) return { done: false, requeueAfterMs: STEP_REQUEUE_MS };
  // Degraded: a Database that was up, so the next pass may fail over (wasUp).
  await ctx.writer.update({ operation: undefined, phase: "Degraded" });
  await ctx.cluster.recordEvent(ctx.db, {
    type: "Warning",
    reason: `${op.type}TargetLost`,
    message: `${why} after ${Math.round(waitedMs / 1000)} s; the ${op.type.toLowerCase()} to ${op.to} is abandoned and the target will be chosen again`,
  });
  return { done: false, abandoned: true, requeueAfterMs: STEP_REQUEUE_MS };
}

/**
 * The primary restarts in place (a change lowers a limit standbys must match, so it goes first):
 * its pod is recorded, checkpointed and deleted with the normal grace period (a clean shutdown),
 * and the StatefulSet recreates it; /topology/primary still names it, so it starts as the primary.
 * Done once the new pod is ready. No failover while it runs, unless it is not back within
 * RESTART_TIMEOUT_MS: then the operation ends with a Warning and the usual failure handling
 * takes over.
 */
async function restartInPlace(ctx: OperationContext, op: Operation): Promise<OperationResult> {
  const pod = podNamed(ctx.pods, op.from);
  if (op.fencedPodUid === undefined && pod) {
    await recordAndStop(ctx, op, pod);
    return { done: false, requeueAfterMs: STEP_REQUEUE_MS };
  }
  // (No pod recorded and none there: it went by itself; the timeout below still holds.)
  const back = pod && pod.metadata?.uid !== op.fencedPodUid && isPodReady(pod);
  const waitedMs = ctx.now().getTime() - Date.parse(op.startedAt);
  if (!back && waitedMs < RESTART_TIMEOUT_MS)
    return { done: false, requeueAfterMs: STEP_REQUEUE_MS };
  const seconds = Math.round(waitedMs / 1000);
  await ctx.writer.update({ operation: undefined, ...(back ? {} : { phase: "Degraded" }) });
  await ctx.cluster.recordEvent(ctx.db, {
    type: back ? "Normal" : "Warning",
    reason: back ? "RestartCompleted" : "RestartTimeout",
    message: back
      ? `The primary ${op.from} is back after ${seconds} s`
      : `The primary ${op.from} is not back after ${seconds} s; failure handling takes over`,
  });
  return { done: true, primary: op.from };
}

/** Status, metrics and Events once the target is the writable primary. */
async function complete(ctx: OperationContext, op: Operation): Promise<void> {
  const finished = ctx.now();
  const seconds = Math.max(0, Math.round((finished.getTime() - Date.parse(op.startedAt)) / 1000));
  const record = {
    time: finished.toISOString(),
    from: op.from,
    to: op.to,
    reason: op.reason ?? "",
    durationSeconds: seconds,
  };
  await ctx.writer.update({
    operation: undefined,
    currentPrimary: op.to,
    targetPrimary: op.to,
    ...(op.type === "Failover" ? { lastFailover: record } : { lastSwitchover: record }),
  });
  if (op.type === "Failover") ctx.onFailover?.(seconds);
  await ctx.cluster.recordEvent(ctx.db, {
    type: "Normal",
    reason: `${op.type}Completed`,
    message: `${op.to} is the primary (was ${op.from}); took ${seconds} s`,
  });
  if (op.requested) await ctx.writer.removeAnnotation(ANNOTATION_SWITCHOVER);
}
