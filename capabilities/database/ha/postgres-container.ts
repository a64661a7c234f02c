/**
 * What the kubelet says of an instance's postgres container, from the pod's status: whether it
 * is waiting out a crash-loop backoff (nothing runs, and nothing will for seconds to minutes) and
 * when the kubelet last restarted it in place. The Pod watch delivers both about a second after
 * the fact, where SQL probes need several rounds to tell. Pure; table-tested.
 */
import type { KubeObject } from "../cluster/objects";
import { POSTGRES_CONTAINER } from "../specs/layout";

export interface PostgresContainer {
  /** Waiting in CrashLoopBackOff: it ended again soon after a restart. Absent otherwise. */
  crashLooping?: true;
  /** When its current run began, if that run is a restart in place (ms since the epoch). */
  restartedAt?: number;
}

interface ContainerStatus {
  name?: string;
  restartCount?: number;
  state?: { waiting?: { reason?: string }; running?: { startedAt?: string | Date } };
}

/** The postgres container's state; empty when the pod reports none yet. */
export function postgresContainerOf(pod: KubeObject): PostgresContainer {
  const statuses = (pod.status as { containerStatuses?: ContainerStatus[] } | undefined)
    ?.containerStatuses;
  const container = statuses?.find(c => c.name === POSTGRES_CONTAINER);
  if (!container) return {};
  const restartedAt = restartedAtOf(container);
  return {
    ...(container.state?.waiting?.reason === "CrashLoopBackOff" ? { crashLooping: true } : {}),
    ...(restartedAt !== undefined ? { restartedAt } : {}),
  };
}

/** When its current run began, if the kubelet restarted it for that run. */
function restartedAtOf(container: ContainerStatus): number | undefined {
  const startedAt = container.state?.running?.startedAt;
  if (!container.restartCount || startedAt === undefined) return undefined;
  const at = new Date(startedAt).getTime();
  return Number.isNaN(at) ? undefined : at;
}
