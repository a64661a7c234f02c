/**
 * A pod whose container the kubelet cannot pull the image of, from its status: what the Ready
 * condition names (reconcile/status.ts), and an instance the HA step may replace at once when
 * its template changed (a pod that never started serves nothing).
 */
import type { KubeObject } from "./objects";

export interface ImagePullProblem {
  container: string;
  image: string;
  /** ErrImagePull, ImagePullBackOff or InvalidImageName. */
  reason: string;
  message?: string;
}

/** The kubelet's waiting reasons for an image it cannot get. */
const IMAGE_PULL_REASONS = new Set(["ErrImagePull", "ImagePullBackOff", "InvalidImageName"]);

interface ContainerStatus {
  name?: string;
  image?: string;
  state?: { waiting?: { reason?: string; message?: string } };
}

/** The first container (init containers included) waiting for an image it cannot pull. */
export function imagePullProblem(pod: KubeObject): ImagePullProblem | undefined {
  const status = pod.status as
    | { initContainerStatuses?: ContainerStatus[]; containerStatuses?: ContainerStatus[] }
    | undefined;
  const all = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])];
  const stuck = all.find(c => IMAGE_PULL_REASONS.has(c.state?.waiting?.reason ?? ""));
  if (!stuck) return undefined;
  const { reason = "", message } = stuck.state?.waiting ?? {};
  return {
    container: stuck.name ?? "",
    image: stuck.image ?? "",
    reason,
    ...(message ? { message } : {}),
  };
}
