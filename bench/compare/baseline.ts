/**
 * The controller-runtime baseline (../shared/bench/baseline-go, built by bench/compare.sh) as a
 * process: started with the operator's kubeconfig (so the audit log counts its requests as the
 * operator's) and stopped by its pid.
 */
import { ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { env } from "../../test/integration/harness/env";

export interface RunningOperator {
  pid: number;
  stop(): Promise<void>;
}

export function startBaseline(binary: string, workers: number, tag: string): RunningOperator {
  mkdirSync(env.logDir, { recursive: true });
  const log = createWriteStream(join(env.logDir, `baseline-${tag}.log`));
  const child: ChildProcess = spawn(binary, [`-workers=${workers}`], {
    env: { ...process.env, KUBECONFIG: env.operatorKubeconfig },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  if (child.pid === undefined) throw new Error(`could not start ${binary}`);
  const exited = new Promise<void>(resolve => child.once("exit", () => resolve()));
  return {
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
