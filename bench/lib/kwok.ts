/**
 * Fake nodes with kwok (sigs.k8s.io/kwok v0.8.0, built by bench/scale.sh): nodes become Ready and
 * pods scheduled on them Running and Ready, without any kubelet. Its stages come from the kwok
 * module in the Go module cache (node-initialize, node-heartbeat, pod-ready/complete/delete).
 */
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { env } from "../../test/integration/harness/env";
import { kubectlOk } from "../../test/integration/harness/kubectl";

const KWOK_VERSION = "v0.8.0";
const STAGES = [
  "node/fast/node-initialize.yaml",
  "node/heartbeat/node-heartbeat.yaml",
  "pod/fast/pod-ready.yaml",
  "pod/fast/pod-complete.yaml",
  "pod/fast/pod-delete.yaml",
];
export const KWOK_LABEL = "pgkeeper.dev/bench-node";
export const KWOK_TAINT = { key: KWOK_LABEL, value: "true", effect: "NoSchedule" } as const;
/** The scheduling a pod needs to run on kwok's nodes, and only there. */
export const ON_KWOK_NODES = {
  nodeSelector: { [KWOK_LABEL]: "true" },
  tolerations: [{ key: KWOK_LABEL, operator: "Equal", value: "true", effect: "NoSchedule" }],
};

function stagesConfig(dir: string): string {
  const modCache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
  const root = join(modCache, `sigs.k8s.io/kwok@${KWOK_VERSION}`, "kustomize", "stage");
  const file = join(dir, "kwok-stages.yaml");
  writeFileSync(file, STAGES.map(s => readFileSync(join(root, s), "utf8")).join("\n---\n"));
  return file;
}

export class Kwok {
  private child?: ChildProcess;

  async start(binary: string, nodes: number): Promise<void> {
    const dir = join(env.work, "bench");
    mkdirSync(dir, { recursive: true });
    const log = createWriteStream(join(dir, "kwok.log"), { flags: "a" });
    this.child = spawn(
      binary,
      [
        `--kubeconfig=${env.kubeconfig}`,
        `--manage-nodes-with-label-selector=${KWOK_LABEL}=true`,
        `--config=${stagesConfig(dir)}`,
        "--cidr=10.99.0.0/16",
      ],
      { detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    this.child.stdout?.pipe(log);
    this.child.stderr?.pipe(log);
    const items = Array.from({ length: nodes }, (_, i) => ({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: `kwok-${i}`,
        labels: { [KWOK_LABEL]: "true", "kubernetes.io/hostname": `kwok-${i}`, type: "kwok" },
        annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
      },
      // Only pods that ask for a fake node get one: a real node's pods (the installed operator's)
      // would run nowhere here, though the Deployment would call them ready.
      spec: { taints: [KWOK_TAINT] },
      status: {
        allocatable: { cpu: "1000", memory: "4Ti", pods: "1000" },
        capacity: { cpu: "1000", memory: "4Ti", pods: "1000" },
      },
    }));
    kubectlOk(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items }));
  }

  async stop(): Promise<void> {
    kubectlOk(["delete", "nodes", "-l", `${KWOK_LABEL}=true`, "--wait=false"]);
    const child = this.child;
    if (!child?.pid || child.exitCode !== null) return;
    const done = new Promise<void>(r => child.once("exit", () => r()));
    process.kill(-child.pid, "SIGTERM");
    await done;
  }
}
