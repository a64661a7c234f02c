/**
 * The kubelet's own count of the probes it ran: `prober_probe_total` on its /metrics/probes
 * endpoint, read through the apiserver's node proxy. The evidence for what a pod's probes cost
 * is what the kubelet did, not the pod spec the operator wrote.
 */
import { get, kubectlOk } from "../integration/harness/kubectl";

export type ProbeType = "Startup" | "Readiness" | "Liveness";

/** Probes run per probe type and result, e.g. `{ "Startup/successful": 1 }`. */
export type ProbeCounts = Record<string, number>;

const SAMPLE = /^prober_probe_total\{([^}]*)\}\s+(\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** One container of one pod; with `pod_uid`, of that pod alone and not an earlier one of its name. */
export type ProbedContainer = Record<"namespace" | "pod" | "container", string> & {
  pod_uid?: string;
};

/** Parses the exposition text, keeping the samples of `which`. */
export function probeCountsOf(text: string, which: ProbedContainer): ProbeCounts {
  const counts: ProbeCounts = {};
  for (const line of text.split("\n")) {
    const sample = SAMPLE.exec(line);
    if (!sample) continue;
    const labels = Object.fromEntries([...sample[1].matchAll(LABEL)].map(m => [m[1], m[2]]));
    if (Object.entries(which).some(([name, value]) => labels[name] !== value)) continue;
    const key = `${labels.probe_type}/${labels.result}`;
    counts[key] = (counts[key] ?? 0) + Number(sample[2]);
  }
  return counts;
}

/** What the kubelet of `pod`'s node counted for its `container`, in the pod that has the name now. */
export function kubeletProbeCounts(namespace: string, pod: string, container: string): ProbeCounts {
  const found = get("pod", namespace, pod);
  const node = (found?.spec as { nodeName?: string } | undefined)?.nodeName;
  if (!found || !node) throw new Error(`pod ${namespace}/${pod} is not on a node`);
  const text = kubectlOk(["get", "--raw", `/api/v1/nodes/${node}/proxy/metrics/probes`]);
  return probeCountsOf(text, { namespace, pod, container, pod_uid: String(found.metadata.uid) });
}

/** All runs of one probe type, whatever their result. */
export const runsOf = (counts: ProbeCounts, type: ProbeType): number =>
  Object.entries(counts)
    .filter(([key]) => key.startsWith(`${type}/`))
    .reduce((sum, [, n]) => sum + n, 0);
