/**
 * A TypeScript child process (the write loads) with its configuration in a file: started under
 * ts-node, stopped by SIGTERM, and by SIGKILL if it has not exited 10 s later.
 */
import { ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes `config` to `<dir>/config.json` (only the owner may read it: it holds passwords), then runs `script` on it. */
export function startChild(script: string, dir: string, config: object): ChildProcess {
  const file = join(dir, "config.json");
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return spawn(process.execPath, ["-r", "ts-node/register/transpile-only", script, file], {
    stdio: "inherit",
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" },
  });
}

export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  await new Promise<void>(resolve => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
  });
}
