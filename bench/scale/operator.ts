/**
 * The operator bench/scale measures, in one of two places (bench/lib/placement.ts's names):
 *   dev      the watcher bundle as a host process (`pepr build`'s code, no container);
 *   cluster  the watcher pods `pepr deploy` installed, as users run them: the leader's node
 *            process measured from the node's /proc, its metrics read through the apiserver's pod
 *            proxy, its requests found in the audit log under its ServiceAccount.
 * Either way a run gets a fresh process, so a peak RSS is that run's own.
 */
import { Watcher } from "../../test/integration/harness/watcher";
import { OPERATOR_USER } from "../../test/integration/harness/env";
import { get, kubectl, kubectlOk } from "../../test/integration/harness/kubectl";
import { metricValue } from "../../test/integration/harness/metrics";
import { podProcesses } from "../../test/e2e/load";
import { OPERATOR_NAMESPACE, awaitLeader, awaitRollout } from "../../test/e2e/installed-operator";
import { cpuSecondsOf, memoryOf } from "../lib/process";
import { podCpuSeconds } from "../lib/pod-usage";

export interface ScaleOperator {
  /** The apiserver user its requests are audited under. */
  readonly user: string;
  cpuSeconds(): number;
  memory(): { rssMiB: number; peakMiB: number } | undefined;
  scrape(): Promise<string | undefined>;
  metric(name: string, filter?: string): Promise<number>;
  stop(): Promise<void>;
}

/** Settings of one run; every other setting is the operator's default. */
export interface ScaleSettings {
  concurrency: number;
  resyncSeconds: number;
  nodeOptions: string;
  /** Nothing answers SQL in kwok's pods: probing every second would only time out. */
  probeIntervalMs: string;
}

const settingsEnv = (s: ScaleSettings): Record<string, string> => ({
  PGKEEPER_MAX_CONCURRENT_RECONCILES: String(s.concurrency),
  PGKEEPER_RESYNC_SECONDS: String(s.resyncSeconds),
  PGKEEPER_PROBE_INTERVAL_MS: s.probeIntervalMs,
  NODE_OPTIONS: s.nodeOptions,
});

/** The watcher bundle as a host process, its Lease in `ns`. */
export async function hostOperator(ns: string, s: ScaleSettings): Promise<ScaleOperator> {
  const watcher = new Watcher(`bench-${ns}`, {
    ...settingsEnv(s),
    PGKEEPER_LEASE_NAMESPACE: ns,
    LOG_LEVEL: "warn",
  });
  await watcher.start();
  const pid = watcher.pid!;
  return {
    user: OPERATOR_USER,
    cpuSeconds: () => cpuSecondsOf(pid) ?? 0,
    memory: () => memoryOf(pid),
    scrape: () => watcher.scrape(),
    metric: (name, filter = "") => watcher.metric(name, filter),
    stop: () => watcher.stop("SIGTERM"),
  };
}

const WATCHER = "pepr-pgkeeper-watcher";
const METRICS_PORT = 9464;

/** The installed watchers with this run's settings, restarted so the leader's process is new. */
export async function clusterOperator(s: ScaleSettings): Promise<ScaleOperator> {
  const pairs = Object.entries(settingsEnv(s)).map(([k, v]) => `${k}=${v}`);
  kubectlOk(["set", "env", "-n", OPERATOR_NAMESPACE, `deployment/${WATCHER}`, ...pairs]);
  kubectlOk(["rollout", "restart", "-n", OPERATOR_NAMESPACE, `deployment/${WATCHER}`]);
  await awaitRollout();
  const leader = await awaitLeader();
  const pod = get("pod", OPERATOR_NAMESPACE, leader)!;
  const uid = pod.metadata.uid!;
  const [node] = podProcesses(uid, "node");
  if (!node) throw new Error(`no node process in the leading watcher ${leader}`);
  const account = (pod.spec as { serviceAccountName: string }).serviceAccountName;
  const proxy = `/api/v1/namespaces/${OPERATOR_NAMESPACE}/pods/${leader}:${METRICS_PORT}/proxy/metrics`;
  const scrape = async () => {
    const r = kubectl(["get", "--raw", proxy]);
    return r.code === 0 ? r.stdout : undefined;
  };
  return {
    user: `system:serviceaccount:${OPERATOR_NAMESPACE}:${account}`,
    cpuSeconds: () => podCpuSeconds(uid, "node"),
    memory: () => memoryOf(node.pid),
    scrape,
    metric: async (name, filter = "") => {
      const text = await scrape();
      if (text === undefined) throw new Error(`no metrics from ${leader}`);
      return metricValue(text, name, filter);
    },
    // The installed operator stays for the next run; the bench's end removes it.
    stop: async () => undefined,
  };
}
