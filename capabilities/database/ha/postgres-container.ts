/**
 * What the kubelet says of an instance's postgres container, from the pod's status: whether it
 * is waiting out a crash-loop backoff (nothing runs, and nothing will for seconds to minutes),
 * when the kubelet last restarted it in place, the image it runs, and why its entrypoint refused
 * to start (the termination message: an image of another major than spec.version, a data
 * directory of another major). The Pod watch delivers these about a second after the fact, where
 * SQL probes need several rounds to tell. Pure; table-tested.
 */
import type { KubeObject } from "../cluster/objects";
import { POSTGRES_CONTAINER } from "../specs/layout";

export interface PostgresContainer {
  /** Waiting in CrashLoopBackOff: it ended again soon after a restart. Absent otherwise. */
  crashLooping?: true;
  /** When its current run began, if that run is a restart in place (ms since the epoch). */
  restartedAt?: number;
  /**
   * The image it was started with, as the pod's spec names it: the status's `image` can name
   * another tag of the same image (the kubelet looks tags up by image ID).
   */
  image?: string;
  /** What the kubelet says runs: the image's digest (a registry reference with @sha256:). */
  imageID?: string;
  /** While it is not running: why its last run ended, in the entrypoint's words. */
  startRefused?: string;
}

export interface Terminated {
  exitCode?: number;
  message?: string;
  finishedAt?: string | Date;
}

export interface ContainerStatus {
  name?: string;
  imageID?: string;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string; message?: string };
    running?: { startedAt?: string | Date };
    terminated?: Terminated;
  };
  lastState?: { terminated?: Terminated };
}

/** The postgres container's state; empty when the pod reports none yet. */
export function postgresContainerOf(pod: KubeObject): PostgresContainer {
  const statuses = (pod.status as { containerStatuses?: ContainerStatus[] } | undefined)
    ?.containerStatuses;
  const container = statuses?.find(c => c.name === POSTGRES_CONTAINER);
  if (!container) return {};
  const restartedAt = restartedAtOf(container);
  const refused = startRefusedOf(container);
  const image = specImageOf(pod);
  return {
    ...(container.state?.waiting?.reason === "CrashLoopBackOff" ? { crashLooping: true } : {}),
    ...(restartedAt !== undefined ? { restartedAt } : {}),
    ...(image ? { image } : {}),
    ...(container.imageID ? { imageID: container.imageID } : {}),
    ...(refused ? { startRefused: refused } : {}),
  };
}

/**
 * The message of the run that ended last, when it failed and said why, while nothing runs: a
 * running container's last failure is history.
 */
function startRefusedOf(container: ContainerStatus): string | undefined {
  if (container.state?.running) return undefined;
  const ended = container.state?.terminated ?? container.lastState?.terminated;
  if (!ended || ended.exitCode === 0) return undefined;
  const message = ended.message?.trim();
  return message ? message : undefined;
}

/** The newest of its runs that failed and said why (a termination message), if any. */
export const failedRunOf = (
  container: ContainerStatus,
): (Terminated & { message: string }) | undefined =>
  [container.state?.terminated, container.lastState?.terminated].find(
    (t): t is Terminated & { message: string } =>
      t !== undefined && t.exitCode !== 0 && typeof t.message === "string" && t.message !== "",
  );

const specImageOf = (pod: KubeObject): string | undefined =>
  (pod.spec as { containers?: { name?: string; image?: string }[] } | undefined)?.containers?.find(
    c => c.name === POSTGRES_CONTAINER,
  )?.image;

/** When its current run began, if the kubelet restarted it for that run. */
function restartedAtOf(container: ContainerStatus): number | undefined {
  const startedAt = container.state?.running?.startedAt;
  if (!container.restartCount || startedAt === undefined) return undefined;
  const at = new Date(startedAt).getTime();
  return Number.isNaN(at) ? undefined : at;
}
