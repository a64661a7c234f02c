/**
 * The operator as users install it (`pepr deploy` or Helm) in the local cluster's `pepr-system`:
 * its rollouts, its leader, its commands' logs.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { env } from "../integration/harness/env";
import { get, kubectl, kubectlOk } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";

export const OPERATOR_NAMESPACE = "pepr-system";
export const DEPLOYMENTS = ["pepr-pgkeeper", "pepr-pgkeeper-watcher"] as const;
/** The controller image, pulled from the local cluster's registry as in production. */
export const controllerImage = (repository: string): string => `${repository}/controller:dev`;

/** What `pepr deploy` installs, by name (its namespace holds the rest). */
const DEPLOYED = [
  ["validatingwebhookconfiguration", "pepr-pgkeeper"],
  ["mutatingwebhookconfiguration", "pepr-pgkeeper"],
  ["clusterrolebinding", "pepr-pgkeeper"],
  ["clusterrole", "pepr-pgkeeper"],
  ["namespace", OPERATOR_NAMESPACE],
];

/** Deletes what `pepr deploy` installed, as an administrator would (there is no `pepr undeploy`). */
export function removeDeployed(): void {
  for (const [kind, name] of DEPLOYED) {
    kubectl(["delete", kind, name, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  }
}

/** All replicas of the newest generation are updated and available. */
export function rolledOut(name: string): boolean {
  const d = get("deployment", OPERATOR_NAMESPACE, name);
  const spec = d?.spec as { replicas?: number } | undefined;
  type RolloutStatus = {
    observedGeneration?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    replicas?: number;
  };
  const status = d?.status as RolloutStatus | undefined;
  const want = spec?.replicas ?? 1;
  return (
    status?.observedGeneration === d?.metadata.generation &&
    status?.updatedReplicas === want &&
    status?.availableReplicas === want &&
    status?.replicas === want
  );
}

/** Waits for both Deployments to roll out; on timeout, the pods say why. */
export async function awaitRollout(timeoutMs = 300_000): Promise<void> {
  for (const deployment of DEPLOYMENTS) {
    await waitFor(`${deployment} to roll out`, () => rolledOut(deployment), {
      timeoutMs,
      intervalMs: 2000,
    }).catch(err => {
      const pods = kubectl(["get", "pods", "-n", OPERATOR_NAMESPACE, "-o", "wide"]).stdout;
      throw new Error(`${(err as Error).message}\n${pods}`);
    });
  }
}

export interface RunResult {
  status: number | null;
  output: string;
}

/**
 * Runs a command with its output in a log file (never a buffer) and returns its status and
 * the output's last lines.
 */
export function runLogged(
  cmd: string,
  args: string[],
  timeoutMs: number,
  label: string,
  extraEnv: Record<string, string> = {},
): RunResult {
  mkdirSync(env.logDir, { recursive: true });
  const logFile = join(env.logDir, `${label}-${basename(args[0] ?? cmd)}.log`);
  const out = openSync(logFile, "w");
  try {
    const r = spawnSync(cmd, args, {
      cwd: env.repo,
      timeout: timeoutMs,
      stdio: ["ignore", out, out],
      env: { ...process.env, ...extraEnv, KUBECONFIG: env.kubeconfig },
    });
    const tail = readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
    return {
      status: r.error ? null : r.status,
      output: r.error ? `${r.error.message}\n${tail}` : tail,
    };
  } finally {
    closeSync(out);
  }
}

/** runLogged that throws, with the output's last lines, unless the command succeeds. */
export function run(
  cmd: string,
  args: string[],
  timeoutMs: number,
  label: string,
  extraEnv: Record<string, string> = {},
): void {
  const r = runLogged(cmd, args, timeoutMs, label, extraEnv);
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}):\n${r.output}`);
}

/** The holder of the watchers' Lease, as the apiserver has it (a released Lease has none). */
export const leaseHolder = (): string | undefined =>
  (
    get("lease", OPERATOR_NAMESPACE, "pgkeeper-leader")?.spec as
      | { holderIdentity?: string }
      | undefined
  )?.holderIdentity || undefined;

/** The watcher pods not being deleted. */
export const watcherPods = (): string[] =>
  (
    JSON.parse(
      kubectlOk([
        ...["get", "pods", "-n", OPERATOR_NAMESPACE, "-l", "pepr.dev/controller=watcher"],
        ...["-o", "json"],
      ]),
    ) as { items: { metadata: { name: string; deletionTimestamp?: string } }[] }
  ).items
    .filter(p => !p.metadata.deletionTimestamp)
    .map(p => p.metadata.name);

/** Waits until one of the running watchers holds the Lease (an earlier holder's may expire first). */
export const awaitLeader = (): Promise<string> =>
  waitFor(
    "one of the watchers holding the Lease",
    () => {
      const h = leaseHolder();
      return h && watcherPods().includes(h) ? h : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
