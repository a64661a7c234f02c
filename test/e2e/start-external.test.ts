/**
 * `npm start` on a cluster you already have: with PGKEEPER_EXTERNAL_CLUSTER=1 it starts no local
 * cluster and runs the operator as `pepr dev` against the current kubeconfig, here the local
 * cluster started separately (by the tier). The sample comes up and is shown reconciled; Ctrl-C
 * stops the operator, and the script exits 0.
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { env } from "../integration/harness/env";
import { freshNamespace, installCrd } from "../integration/harness/fixtures";
import { get, kubectl } from "../integration/harness/kubectl";
import { removeWebhooks } from "../integration/harness/operator";
import { waitFor } from "../integration/harness/wait";
import { psql, superuserAt } from "./psql";

let ns = "";

afterAll(() => {
  removeWebhooks();
  if (ns) kubectl(["delete", "namespace", ns, "--wait=false"]);
});

it("PGKEEPER_EXTERNAL_CLUSTER=1 npm start runs the operator on the current kubeconfig's cluster, shows the sample, and stops on Ctrl-C", async () => {
  await installCrd();
  ns = freshNamespace("start-external");
  // The sample, in this test's namespace.
  const sample = join(env.work, `start-external-${process.pid}.yaml`);
  writeFileSync(
    sample,
    readFileSync(join(env.repo, "samples", "database.yaml"), "utf8").replace(
      "namespace: default",
      `namespace: ${ns}`,
    ),
  );
  mkdirSync(env.logDir, { recursive: true });
  const logFile = join(env.logDir, "start-external.log");
  const log = createWriteStream(logFile);
  const start = spawn("bash", ["hack/start.sh"], {
    cwd: env.repo,
    detached: true, // its own process group: Ctrl-C reaches the script and what it started
    env: {
      ...process.env,
      PGKEEPER_EXTERNAL_CLUSTER: "1",
      KUBECONFIG: env.kubeconfig,
      PGKEEPER_HOST: "localhost",
      PGKEEPER_SAMPLE: sample,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    log.write(chunk);
  };
  start.stdout.on("data", collect);
  start.stderr.on("data", collect);
  const exited = new Promise<number | null>(resolve => start.once("exit", code => resolve(code)));
  try {
    await waitFor(
      "npm start to show the sample",
      () => output.includes("The operator is running"),
      {
        timeoutMs: 300_000,
        intervalMs: 1000,
      },
    );
    expect(output).toContain("Using your cluster");
    expect(output).not.toContain("Local cluster (the first run builds");
    expect(output).toMatch(/Reconciled=True/);
    // The operator it started runs the Database: PostgreSQL answers.
    await waitFor(
      "the sample Ready",
      () =>
        (get("database", ns, "demo")?.status as { phase?: string } | undefined)?.phase === "Ready",
      { timeoutMs: 240_000, intervalMs: 2000 },
    );
    expect(psql(superuserAt(ns, "demo", get("pod", ns, "demo-0")!), "show max_connections")).toBe(
      "100",
    );
  } finally {
    process.kill(-start.pid!, "SIGINT");
  }
  expect(await exited).toBe(0);
  expect(output).toContain("Operator stopped");
}, 600_000);
