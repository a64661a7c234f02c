/**
 * What a Job and its pod say about how it ended, as the API shows them. Pure; for the Jobs
 * pgkeeper runs (backups, a major upgrade's steps).
 */
import type { KubeObject } from "./cluster";

interface Terminated {
  state?: { terminated?: { message?: string; exitCode?: number } };
}

/**
 * The termination message a pod's containers left: the first container's, else that of an init
 * container that failed (the pod never reached its containers).
 */
const messageOf = (c: Terminated | undefined): string | undefined => c?.state?.terminated?.message;
const failed = (c: Terminated): boolean => (c.state?.terminated?.exitCode ?? 0) !== 0;

export function terminationMessage(pod: KubeObject | undefined): string | undefined {
  const status = pod?.status as
    | { containerStatuses?: Terminated[]; initContainerStatuses?: Terminated[] }
    | undefined;
  const main = messageOf(status?.containerStatuses?.[0]);
  if (main !== undefined) return main;
  return messageOf((status?.initContainerStatuses ?? []).find(c => failed(c) && messageOf(c)));
}

/**
 * Succeeded once a pod succeeded; failed once the Job controller says so, or once more pods
 * failed than the Job's backoffLimit allows (pgkeeper's Jobs always set it; 0 when absent).
 */
export function jobEnded(job: KubeObject): "succeeded" | "failed" | undefined {
  const status = job.status as
    | { succeeded?: number; failed?: number; conditions?: { type: string; status: string }[] }
    | undefined;
  if ((status?.succeeded ?? 0) > 0) return "succeeded";
  const retries = (job.spec as { backoffLimit?: number } | undefined)?.backoffLimit ?? 0;
  const failedCondition = status?.conditions?.some(c => c.type === "Failed" && c.status === "True");
  if ((status?.failed ?? 0) > retries || failedCondition) return "failed";
  return undefined;
}
