/**
 * kubectl for large answers (the apiserver's /metrics, a list of 1000 Databases): the harness's
 * spawnSync keeps Node's 1 MiB output limit.
 */
import { spawnSync } from "node:child_process";
import { env } from "../../test/integration/harness/env";

export function kubectlBig(args: string[], input?: string): string {
  const run = spawnSync(env.kubectl, ["--kubeconfig", env.kubeconfig, ...args], {
    input,
    encoding: "utf8",
    timeout: 300_000,
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (run.status !== 0)
    throw new Error(
      `kubectl ${args.slice(0, 3).join(" ")} failed: ${run.error?.message ?? run.stderr}`,
    );
  return run.stdout;
}
