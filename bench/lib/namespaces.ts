/**
 * A bench measures on a cluster that holds nothing of earlier runs, and leaves nothing behind.
 * The local cluster keeps its etcd between runs: a run interrupted before its cleanup, or one
 * whose namespace was still being deleted when the cluster stopped, came back at the next start,
 * its PostgreSQL instances probed and its pods deleted beside the next bench's measurements
 * (2026-12-06: two failover benches' Databases, three instances each, ran under every bench of a
 * day, and 674 Databases of a compare run were still being deleted under the next).
 */
import { kubectl } from "../../test/integration/harness/kubectl";
import { waitFor } from "../../test/integration/harness/wait";
import { kubectlBig } from "./kubectl";

/** How long a bench's namespace (1,000 Databases' objects, pods stopping gracefully) may take to go. */
const NAMESPACE_GONE_MS = 900_000;

interface Listed {
  items: { metadata: { name: string; namespace?: string }; status?: { phase?: string } }[];
}

const listed = (args: string[]): Listed["items"] =>
  (JSON.parse(kubectlBig(["get", ...args, "-o", "json"])) as Listed).items;

/**
 * Deletes `namespace` and waits until the apiserver no longer has it. `forcePods`: no kubelet
 * runs them (a control plane alone), so nobody but a forced deletion finishes the pods'.
 */
export async function removeNamespace(
  namespace: string,
  { forcePods = false } = {},
): Promise<void> {
  kubectl(["delete", "namespace", namespace, "--wait=false"]);
  if (forcePods)
    kubectl(["delete", "pods", "--all", "-n", namespace, "--grace-period=0", "--force"]);
  await waitFor(`namespace ${namespace} to go`, () => !exists(namespace), {
    timeoutMs: NAMESPACE_GONE_MS,
    intervalMs: 1000,
  });
}

const exists = (namespace: string): boolean => kubectl(["get", "namespace", namespace]).code === 0;

/**
 * Waits for namespaces already being deleted, then refuses to go on while any Database exists:
 * what an earlier run left would run beside this one. The error names them and how to remove
 * them.
 */
export async function requireQuietCluster(): Promise<void> {
  const terminating = listed(["namespaces"])
    .filter(n => n.status?.phase === "Terminating")
    .map(n => n.metadata.name);
  if (terminating.length > 0) {
    console.log(`waiting for namespaces of earlier runs to go: ${terminating.join(", ")}`);
    await waitFor(
      "namespaces of earlier runs to go",
      () => terminating.every(n => !exists(n)) || undefined,
      { timeoutMs: NAMESPACE_GONE_MS, intervalMs: 2000 },
    );
  }
  const crd = kubectl(["get", "crd", "databases.pgkeeper.dev"]).code === 0;
  const left = crd ? listed(["databases", "--all-namespaces"]) : [];
  if (left.length === 0) return;
  const namespaces = [...new Set(left.map(d => d.metadata.namespace ?? ""))];
  throw new Error(
    `the cluster holds ${left.length} Database(s) of earlier runs, in ${namespaces.join(", ")}: ` +
      `their instances and reconciles would run beside this bench. Remove them first ` +
      `(kubectl delete namespace ${namespaces.join(" ")}), or start from an empty cluster ` +
      `(bash hack/cluster/cluster.sh down, then remove .work/cluster/etcd).`,
  );
}
