/**
 * Failover and switchover as a small state machine recorded in status.operation before every
 * step, so an operator restarted midway resumes the same operation with the same target (and a
 * promotion is never repeated on another instance):
 *
 *   Fencing:   topology ConfigMap names the target (a returning old primary rejoins as a
 *              standby); the old primary loses its role label (out of `<db>-rw`) and its pod is
 *              deleted, with a 1 s grace period on failover (a frozen postgres is killed) and the
 *              normal one on switchover (a clean shutdown ships all WAL to the standbys).
 *              Done when that pod is gone or replaced (another UID), or after FENCE_TIMEOUT_MS.
 *   Promoting: pg_promote() on the target (a no-op when it is already out of recovery), role
 *              labels, status, Events. The other replicas follow `<db>-rw` to the new primary
 *              and its timeline by themselves.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { Database } from "../api/database";
import { DatabaseStatus } from "../api/database-schema";
import { ANNOTATION_SWITCHOVER, LABEL_ROLE } from "../api/names";
import { BuildInput, buildTopologyConfigMap } from "../specs";
import { Child } from "../specs/meta";
import { convergeChild } from "../reconcile/children";
import { Cluster, KubeObject, refOf } from "../reconcile/cluster";
import { withAppliedHash } from "../reconcile/diff";
import { statusPatch } from "../reconcile/status";
import type { InstanceSql } from "./probe-types";

export type Operation = NonNullable<DatabaseStatus["operation"]>;

/** How long to wait for the old primary's pod to go before promoting anyway. */
export const FENCE_TIMEOUT_MS = 60_000;
/** Poll interval while waiting for a step. */
export const STEP_REQUEUE_MS = 500;
export const PROMOTE_TIMEOUT_SECONDS = 60;

export interface OperationContext {
  cluster: Cluster;
  sql: Pick<InstanceSql, "promote" | "checkpoint">;
  db: Database;
  input: BuildInput;
  pods: KubeObject[];
  password: string;
  port: number;
  now: () => Date;
  /** Checked before every step that acts: a deposed leader must stop at once. */
  isLeader: () => boolean;
  onFailover?: (seconds: number) => void;
}

export interface OperationResult {
  writes: number;
  done: boolean;
  requeueAfterMs?: number;
}

export class LostLeadership extends Error {
  constructor() {
    super("Lost leadership: leaving the operation to the new leader");
  }
}

const podNamed = (pods: KubeObject[], name: string): KubeObject | undefined =>
  pods.find(p => p.metadata?.name === name);
const podIP = (pod: KubeObject | undefined): string | undefined =>
  (pod?.status as { podIP?: string } | undefined)?.podIP;

/** Records a new operation (phase, target) and announces it. */
export async function startOperation(
  ctx: OperationContext,
  op: Omit<Operation, "step" | "startedAt">,
): Promise<Operation> {
  const started: Operation = { ...op, step: "Fencing", startedAt: ctx.now().toISOString() };
  await writeStatus(ctx, {
    ...ctx.db.status,
    phase: op.type === "Failover" ? "FailingOver" : "SwitchingOver",
    targetPrimary: op.to,
    operation: started,
  });
  await ctx.cluster.recordEvent(ctx.db, {
    type: op.type === "Failover" ? "Warning" : "Normal",
    reason: `${op.type}Started`,
    message: `${op.type} from ${op.from} to ${op.to}: ${op.reason ?? ""}`.trim(),
  });
  return started;
}

export async function runOperation(ctx: OperationContext, op: Operation): Promise<OperationResult> {
  let writes = 0;
  if (op.step === "Fencing") {
    const fenced = await fence(ctx, op);
    writes += fenced.writes;
    if (!fenced.done) return { writes, done: false, requeueAfterMs: STEP_REQUEUE_MS };
    op = { ...op, step: "Promoting" };
    writes += await writeStatus(ctx, { ...ctx.db.status, operation: op });
  }
  const promoted = await promote(ctx, op);
  return { ...promoted, writes: writes + promoted.writes };
}

async function fence(
  ctx: OperationContext,
  op: Operation,
): Promise<{ writes: number; done: boolean }> {
  ensureLeader(ctx);
  const topology = buildTopologyConfigMap({ ...ctx.input, primary: op.to }) as Child<V1ConfigMap>;
  const applied = await convergeChild(ctx.cluster, ctx.db, withAppliedHash(topology));
  let writes = applied.change === "none" ? 0 : 1;
  const old = podNamed(ctx.pods, op.from);
  if (!old) return { writes, done: true };
  if (old.metadata?.labels?.[LABEL_ROLE] !== undefined) {
    await ctx.cluster.patchLabels(refOf(old), { [LABEL_ROLE]: null });
    writes++;
  }
  if (op.fencedPodUid === undefined)
    return { writes: writes + (await stopPod(ctx, op, old)), done: false };
  if (old.metadata?.uid !== op.fencedPodUid) return { writes, done: true };
  return { writes: writes + (await fenceTimedOut(ctx, op)), done: fenceGaveUp(ctx, op) };
}

/** Deletes the old primary's pod and records which pod that was. */
async function stopPod(ctx: OperationContext, op: Operation, pod: KubeObject): Promise<number> {
  if (op.type === "Switchover") await checkpointQuietly(ctx, pod);
  ensureLeader(ctx);
  await ctx.cluster.delete(
    refOf(pod),
    op.type === "Failover" ? { gracePeriodSeconds: 1 } : undefined,
  );
  op.fencedPodUid = pod.metadata?.uid;
  return 1 + (await writeStatus(ctx, { ...ctx.db.status, operation: { ...op } }));
}

const fenceGaveUp = (ctx: OperationContext, op: Operation): boolean =>
  ctx.now().getTime() - Date.parse(op.startedAt) >= FENCE_TIMEOUT_MS;

async function fenceTimedOut(ctx: OperationContext, op: Operation): Promise<number> {
  if (!fenceGaveUp(ctx, op)) return 0;
  const waited = Math.round((ctx.now().getTime() - Date.parse(op.startedAt)) / 1000);
  await ctx.cluster.recordEvent(ctx.db, {
    type: "Warning",
    reason: "FenceTimeout",
    message: `${op.from}'s pod is still there after ${waited} s (node lost?); promoting ${op.to} anyway: it is out of <db>-rw`,
  });
  return 1;
}

/** A checkpoint before a clean shutdown makes the shutdown (and so the switchover) faster. */
async function checkpointQuietly(ctx: OperationContext, pod: KubeObject): Promise<void> {
  const ip = podIP(pod);
  if (!ip) return;
  try {
    await ctx.sql.checkpoint({ host: ip, port: ctx.port, password: ctx.password });
  } catch {
    // Only an optimisation: the shutdown checkpoints anyway.
  }
}

async function promote(ctx: OperationContext, op: Operation): Promise<OperationResult> {
  const target = podNamed(ctx.pods, op.to);
  const ip = target && !target.metadata?.deletionTimestamp ? podIP(target) : undefined;
  if (!target || !ip) return { writes: 0, done: false, requeueAfterMs: STEP_REQUEUE_MS };
  ensureLeader(ctx);
  await ctx.sql.promote(
    { host: ip, port: ctx.port, password: ctx.password },
    PROMOTE_TIMEOUT_SECONDS,
  );
  let writes = 0;
  if (target.metadata?.labels?.[LABEL_ROLE] !== "primary") {
    await ctx.cluster.patchLabels(refOf(target), { [LABEL_ROLE]: "primary" });
    writes++;
  }
  writes += await complete(ctx, op);
  return { writes, done: true };
}

/** Status, metrics and Events once the target is the writable primary. */
async function complete(ctx: OperationContext, op: Operation): Promise<number> {
  const finished = ctx.now();
  const seconds = Math.max(0, Math.round((finished.getTime() - Date.parse(op.startedAt)) / 1000));
  const record = {
    time: finished.toISOString(),
    from: op.from,
    to: op.to,
    reason: op.reason ?? "",
    durationSeconds: seconds,
  };
  const { operation: _done, ...rest } = ctx.db.status ?? {};
  const writes = await writeStatus(ctx, {
    ...rest,
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
  if (op.requested) await ctx.cluster.removeAnnotation(ctx.db, ANNOTATION_SWITCHOVER);
  return writes;
}

function ensureLeader(ctx: OperationContext): void {
  if (!ctx.isLeader()) throw new LostLeadership();
}

/** Writes status when it changed and keeps ctx.db.status current for the next step. */
async function writeStatus(ctx: OperationContext, next: DatabaseStatus): Promise<number> {
  const patch = statusPatch(ctx.db.status, next);
  if (!patch) return 0;
  await ctx.cluster.patchStatus(ctx.db, patch);
  ctx.db.status = next;
  return 1;
}
