/**
 * The Recovered condition of a Database created from a backup (bootstrap.recovery), from its
 * first pod's container status. The entrypoint ends the container with the reason in its
 * termination message when a restore fails (the source unreadable, a target recovery cannot
 * reach); the kubelet starts it again with backoff, and each attempt begins from nothing. Pure;
 * table-tested.
 */
import type { ConditionInput } from "../api/conditions";
import type { KubeObject } from "../cluster/objects";
import { POSTGRES_CONTAINER } from "../specs/layout";
import { ContainerStatus, failedRunOf } from "./postgres-container";

export interface RecoveryState {
  /** A failed attempt's reason (termination message), the newest; undefined: none failed. */
  failure?: string;
  /** When it failed. */
  failedAt?: string;
  /** Attempts that failed, as the kubelet counts restarts. */
  failedAttempts: number;
}

/**
 * The kubelet cannot even start the container: the source's credentials Secret (or a key of it)
 * is missing, and the restore never begins. It says so in the waiting state.
 */
const CONFIG_ERRORS = new Set(["CreateContainerConfigError", "CreateContainerError"]);

/** What the first pod says about its restore (undefined: no pod, or no status yet). */
export function recoveryStateOf(pod: KubeObject | undefined): RecoveryState | undefined {
  const statuses = (pod?.status as { containerStatuses?: ContainerStatus[] } | undefined)
    ?.containerStatuses;
  const container = statuses?.find(c => c.name === POSTGRES_CONTAINER);
  if (!container) return undefined;
  return cannotStart(container) ?? lastFailure(container) ?? { failedAttempts: 0 };
}

function cannotStart(container: ContainerStatus): RecoveryState | undefined {
  const waiting = container.state?.waiting;
  if (!waiting?.reason || !CONFIG_ERRORS.has(waiting.reason)) return undefined;
  return {
    failure: `the container cannot start (${waiting.reason}): ${waiting.message ?? "no details"}`,
    failedAttempts: 1,
  };
}

function lastFailure(container: ContainerStatus): RecoveryState | undefined {
  const last = failedRunOf(container);
  if (!last) return undefined;
  const at = last.finishedAt;
  return {
    failure: last.message.trim(),
    ...(at ? { failedAt: typeof at === "string" ? at : at.toISOString() } : {}),
    failedAttempts: Math.max(1, container.restartCount ?? 0),
  };
}

/**
 * The condition; undefined without bootstrap.recovery. Once the Database held data (a primary was
 * ready), it was recovered, whatever an old termination message says.
 */
export function recoveryCondition(
  configured: boolean,
  initialized: boolean,
  state: RecoveryState | undefined,
  source: string,
): ConditionInput | undefined {
  if (!configured) return undefined;
  if (initialized)
    return {
      type: "Recovered",
      status: "True",
      reason: "Recovered",
      message: `Restored from ${source}, recovered and promoted`,
    };
  if (state?.failure)
    return {
      type: "Recovered",
      status: "False",
      reason: "RecoveryFailed",
      message: `Restoring from ${source} failed (attempt ${state.failedAttempts}${state.failedAt ? `, ${state.failedAt}` : ""}): ${state.failure}. The first instance tries again from the start; it never initialises an empty database.`,
    };
  return {
    type: "Recovered",
    status: "Unknown",
    reason: "Recovering",
    message: `Restoring the base backup from ${source} and replaying its WAL archive`,
  };
}
