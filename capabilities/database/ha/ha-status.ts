/**
 * Merges what the HA step observed into the status reconcile is about to write. While an
 * operation runs, its phase and target stay. LSNs, lag and the last archived segment are copied
 * from the previous status unless something else changed or they are older than
 * PROGRESS_REFRESH_MS, so a busy database does not rewrite its status (and wake its own watch) on
 * every reconcile.
 */
import { DatabaseStatus, InstanceStatus } from "../api/database-schema";
import { keepTransitionTimes, setCondition, setConditions } from "../api/conditions";
import { statusPatch } from "../cluster/database-writer";
import { archivingCondition } from "./archiving";
import type { HaResult } from "./ha-step";
import type { DatabaseMemory } from "./memory";

const PROGRESS_REFRESH_MS = 30_000;

/** The instance with the previous status's progress figures, when both have them. */
function withOldProgress(i: InstanceStatus, old: InstanceStatus | undefined): InstanceStatus {
  if (old?.lsn === undefined || i.lsn === undefined) return i;
  const { lagBytes: _lag, ...rest } = i;
  const lag = old.lagBytes !== undefined && i.lagBytes !== undefined ? old.lagBytes : i.lagBytes;
  return { ...rest, lsn: old.lsn, ...(lag !== undefined ? { lagBytes: lag } : {}) };
}

/**
 * ReplicasServing, and what it does to Ready: a Database whose replicas do not all serve reads
 * is Degraded, with the replicas and the reasons in the condition, never Ready.
 */
function withReads(
  next: DatabaseStatus,
  ha: HaResult,
  now: Date,
): Pick<DatabaseStatus, "phase" | "conditions"> {
  const out = Object.entries(ha.notServing).map(([name, why]) => `${name}: ${why}`);
  const conditions = parametersCondition(next, ha, now);
  const generation = next.observedGeneration;
  if (out.length === 0)
    return {
      phase: next.phase,
      conditions: setCondition(conditions, SERVING, now, generation),
    };
  const message = `Not serving reads: ${out.join("; ")}`;
  return {
    phase: next.phase === "Ready" ? "Degraded" : next.phase,
    conditions: setConditions(
      conditions,
      [
        { type: "ReplicasServing", status: "False", reason: "ReplicasNotServing", message },
        ...(next.phase === "Ready"
          ? [
              {
                type: "Ready" as const,
                status: "False" as const,
                reason: "ReplicasNotServing",
                message,
              },
            ]
          : []),
      ],
      now,
      generation,
    ),
  };
}

/**
 * ContinuousArchiving from the primary's last probe (ha.archiver, present only with an object
 * store). Without an object store the condition goes; without a fresh probe it stays as it was.
 */
function withArchiving(
  reads: Pick<DatabaseStatus, "phase" | "conditions">,
  ha: HaResult,
  now: Date,
  generation: number | undefined,
): Pick<DatabaseStatus, "phase" | "conditions"> {
  const condition = archivingCondition(ha.archiver);
  if (condition)
    return { ...reads, conditions: setCondition(reads.conditions, condition, now, generation) };
  if (ha.archivingConfigured) return reads;
  return {
    ...reads,
    conditions: reads.conditions?.filter(c => c.type !== "ContinuousArchiving"),
  };
}

/**
 * Recovered (bootstrap.recovery only), and what a failed restore does to the phase: Failed, with
 * the reason, until an attempt succeeds.
 */
function withRecovery(
  reads: Pick<DatabaseStatus, "phase" | "conditions">,
  ha: HaResult,
  now: Date,
  generation: number | undefined,
): Pick<DatabaseStatus, "phase" | "conditions"> {
  if (!ha.recovery) return reads;
  return {
    phase: ha.recovery.status === "False" ? "Failed" : reads.phase,
    conditions: setCondition(reads.conditions, ha.recovery, now, generation),
  };
}

const SERVING = {
  type: "ReplicasServing" as const,
  status: "True" as const,
  reason: "AllReplicasServing",
  message: "Every replica streams on the primary's timeline within spec.readOnly.maxLag",
};

/** ParametersApplied: whether spec.postgresql reached postgresql.auto.conf everywhere. */
function parametersCondition(
  next: DatabaseStatus,
  ha: HaResult,
  now: Date,
): DatabaseStatus["conditions"] {
  return setCondition(
    next.conditions,
    ha.parametersError
      ? {
          type: "ParametersApplied",
          status: "False",
          reason: "ApplyFailed",
          message: ha.parametersError,
        }
      : {
          type: "ParametersApplied",
          status: "True",
          reason: "Applied",
          message: "Every answering instance has the parameters of the spec",
        },
    now,
    next.observedGeneration,
  );
}

/**
 * The previous ContinuousArchiving while it still says the same (working): its message names the
 * last archived segment, which under writes moves with every segment (every archive_timeout), and
 * is progress like an LSN, refreshed with it.
 */
function withOldArchivingProgress(
  conditions: DatabaseStatus["conditions"],
  prev: DatabaseStatus["conditions"],
): DatabaseStatus["conditions"] {
  const archiving = (all: DatabaseStatus["conditions"]) =>
    all?.find(c => c.type === "ContinuousArchiving");
  const [before, now] = [archiving(prev), archiving(conditions)];
  if (!before || !now || before.status !== "True" || now.status !== "True") return conditions;
  if (before.reason !== now.reason) return conditions;
  return conditions?.map(c => (c.type === "ContinuousArchiving" ? before : c));
}

/** `merged` with the previous status's progress: LSNs, lag, the last archived segment. */
const withOldProgressOf = (
  merged: DatabaseStatus,
  prev: DatabaseStatus | undefined,
): DatabaseStatus => ({
  ...merged,
  conditions: withOldArchivingProgress(merged.conditions, prev?.conditions),
  instances: merged.instances?.map(i =>
    withOldProgress(
      i,
      prev?.instances?.find(o => o.name === i.name),
    ),
  ),
});

function mergeHaStatus(
  next: DatabaseStatus,
  ha: HaResult,
  prev: DatabaseStatus | undefined,
  progressIsStale: boolean,
  now: Date,
): { status: DatabaseStatus; progressWritten: boolean } {
  const { pendingRestart: _p, synchronousStandbys: _s, ...base } = next;
  const merged: DatabaseStatus = {
    ...base,
    ...withRecovery(
      withArchiving(withReads(next, ha, now), ha, now, next.observedGeneration),
      ha,
      now,
      next.observedGeneration,
    ),
    ...(ha.busy ? { phase: prev?.phase, targetPrimary: prev?.targetPrimary } : {}),
    instances: ha.status.instances,
    ...(ha.status.pendingRestart?.length ? { pendingRestart: ha.status.pendingRestart } : {}),
    ...(ha.status.synchronousStandbys?.length
      ? { synchronousStandbys: ha.status.synchronousStandbys }
      : {}),
  };
  // Ready is set twice in a pass (the instance count, then the replicas' serving): only a change
  // from the stored status is a transition, or the comparison below always finds one.
  merged.conditions = keepTransitionTimes(prev?.conditions, merged.conditions);
  if (progressIsStale) return { status: merged, progressWritten: true };
  const steady = withOldProgressOf(merged, prev);
  // Something besides progress changed: write it all, progress included.
  if (statusPatch(prev, steady)) return { status: merged, progressWritten: true };
  return { status: steady, progressWritten: false };
}

/** `next` with what the HA step observed; progress figures refreshed per PROGRESS_REFRESH_MS. */
export function withHaStatus(
  next: DatabaseStatus,
  ha: HaResult,
  prev: DatabaseStatus | undefined,
  progress: DatabaseMemory["progress"],
  now: Date,
): DatabaseStatus {
  const stale = now.getTime() - (progress.writtenAt ?? 0) >= PROGRESS_REFRESH_MS;
  const merged = mergeHaStatus(next, ha, prev, stale, now);
  if (merged.progressWritten) progress.writtenAt = now.getTime();
  return merged.status;
}
