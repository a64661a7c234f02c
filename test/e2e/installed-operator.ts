/**
 * The operator as users install it (`pepr deploy` or Helm) in the local cluster's `pepr-system`:
 * its rollouts, its leader, its commands' logs.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { env } from "../integration/harness/env";
import { freshNamespace } from "../integration/harness/fixtures";
import { get, kubectl, kubectlOk } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import type { OperatorPlacement } from "./ha/quorum-under-load";

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

/**
 * `pepr deploy` of the checkout in `dir` (this one by default) with the controller `image`, and
 * `settings` in its environment (deploy/operator/manifests.ts copies them into both Deployments).
 * pepr deploy waits for its Deployments without a timeout of its own: bounded here.
 */
export function deploy(
  image: string,
  settings: Record<string, string>,
  label: string,
  dir: string = env.repo,
): Promise<void> {
  const pepr = join(dir, "node_modules", ".bin", "pepr");
  return runAsync(pepr, ["deploy", "--yes", "-i", image], 300_000, label, {
    // The tier's lint and type-check already ran: pepr deploy's own repeat of them (a minute and
    // a half per deploy) is skipped (patches/pepr+1.1.4.patch, ADR 0024); it builds the same.
    // LOG_LEVEL as a user's shell has it (Pepr's default): `pepr build` copies the shell's into
    // the Deployments, and jest's `silent` (jest.config.js) left the watchers' logs, which the
    // diagnoses of a failed test read, empty.
    extraEnv: { ...settings, PEPR_SKIP_BUILD_CHECKS: "true", LOG_LEVEL: "info" },
    cwd: dir,
  });
}

/** The operator as installed in the cluster: the suite gets a namespace; the log is the watchers'. */
export const inTheCluster = (): OperatorPlacement => ({
  register: (prefix, onNamespace) => {
    let ns: string | undefined;
    beforeAll(() => {
      ns = freshNamespace(prefix);
      onNamespace(ns);
    });
    afterAll(() => {
      if (ns) kubectl(["delete", "namespace", ns, "--wait=false", "--ignore-not-found"]);
    });
  },
  log: watcherLogFile,
});

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

/**
 * run() without blocking the event loop (a test samples pods while it runs). Killed after
 * `timeoutMs`.
 */
export function runAsync(
  cmd: string,
  args: string[],
  timeoutMs: number,
  label: string,
  { extraEnv = {}, cwd = env.repo }: { extraEnv?: Record<string, string>; cwd?: string } = {},
): Promise<void> {
  mkdirSync(env.logDir, { recursive: true });
  const logFile = join(env.logDir, `${label}-${basename(args[0] ?? cmd)}.log`);
  const out = openSync(logFile, "w");
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      stdio: ["ignore", out, out],
      env: { ...process.env, ...extraEnv, KUBECONFIG: env.kubeconfig },
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    let ended = false;
    // 'error' (it could not start) and 'exit' may both come: the first one settles.
    const end = (error?: string): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      closeSync(out);
      if (error === undefined) return resolve();
      const tail = readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
      reject(new Error(`${cmd} ${args.join(" ")} failed (${error}):\n${tail}`));
    };
    child.on("error", err => end(err.message));
    child.on("exit", (code, signal) => end(code === 0 ? undefined : String(code ?? signal)));
  });
}

/** How often the watchers' Lease changed hands. */
export const leaseTransitions = (): number =>
  (get("lease", OPERATOR_NAMESPACE, "pgkeeper-leader")?.spec as { leaseTransitions?: number })
    ?.leaseTransitions ?? 0;

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

/**
 * The running watchers' logs (the last 2000 lines of each) in one file of the log directory, for
 * diagnosis.ts to read as it reads the host operator's.
 */
export function watcherLogFile(): string {
  mkdirSync(env.logDir, { recursive: true });
  const file = join(env.logDir, "in-cluster-watchers.log");
  const logs = watcherPods().map(pod => {
    const r = kubectl(["logs", "-n", OPERATOR_NAMESPACE, pod, "--tail=2000"]);
    return r.code === 0 ? r.stdout : `(no log of ${pod}: ${r.stderr.trim()})\n`;
  });
  writeFileSync(file, logs.join(""));
  return file;
}
