/**
 * A namespaced install (ADR 0031): pgkeeper's Helm chart with `watchNamespaces`, so the operator
 * holds Roles in those namespaces and nothing cluster-wide but reads and Pepr's own CRD patch.
 * A suite runs its Databases against it as against the host operator: `stopWatchers` and
 * `startWatchers` stand for stopping and starting the operator (admission stays up).
 */
import { WRITE_VERBS } from "../../hack/helm-chart/rbac";
import type { PolicyRule } from "../../hack/rbac-audit/compare";
import { removeWebhooks } from "../integration/harness/operator";
import { get, kubectlOk } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { CHART, LOCAL_VALUES, RELEASE, helmRun, prepareHelm, uninstall } from "./helm-release";
import {
  DEPLOYMENTS,
  OPERATOR_NAMESPACE,
  awaitLeader,
  awaitRollout,
  watcherPods,
} from "./installed-operator";

const WATCHER = DEPLOYMENTS[1];
const ACCOUNT = { name: "pepr-pgkeeper", namespace: OPERATOR_NAMESPACE };

interface Binding {
  metadata: { namespace?: string };
  roleRef: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

export class NamespacedInstall {
  private helm = "";

  constructor(readonly namespaces: readonly string[]) {}

  /** helm install with the namespaces; returns once a watcher leads. */
  async install(): Promise<void> {
    this.helm = prepareHelm();
    // A release an interrupted run left behind (the cluster's etcd outlives it).
    uninstall(this.helm, "namespaced-leftover");
    // Left by a host operator's suite (pepr dev registers them): Helm would refuse to adopt them.
    removeWebhooks();
    // As on a fresh cluster: the chart must bring Pepr's PeprStore CRD (crds/), which `pepr dev`
    // and `pepr deploy` apply as an administrator and the operator may only patch.
    kubectlOk(["delete", "customresourcedefinition", "peprstores.pepr.dev", "--ignore-not-found"]);
    const args = ["install", RELEASE, CHART, "-n", OPERATOR_NAMESPACE, "--create-namespace"];
    const served = ["--set", `watchNamespaces={${this.namespaces.join(",")}}`];
    helmRun(
      this.helm,
      [...args, ...LOCAL_VALUES(), ...served, "--wait", "--timeout", "5m"],
      "namespaced-install",
    );
    await awaitRollout();
    await awaitLeader();
  }

  /** No watcher runs (nobody reconciles or fails over); the webhooks still answer. */
  async stopWatchers(): Promise<void> {
    kubectlOk(["scale", "deployment", WATCHER, "-n", OPERATOR_NAMESPACE, "--replicas=0"]);
    await waitFor("no watcher pod", () => watcherPods().length === 0, { timeoutMs: 120_000 });
  }

  async startWatchers(): Promise<void> {
    kubectlOk(["scale", "deployment", WATCHER, "-n", OPERATOR_NAMESPACE, "--replicas=2"]);
    await awaitRollout();
    await awaitLeader();
  }

  remove(): void {
    if (this.helm) uninstall(this.helm, "namespaced-uninstall");
  }
}

/** The rules bound to the operator's ServiceAccount, live: cluster-wide, and by namespace. */
export function operatorGrants(): {
  cluster: PolicyRule[];
  byNamespace: Map<string, PolicyRule[]>;
} {
  const bindings = (
    JSON.parse(kubectlOk(["get", "clusterrolebindings,rolebindings", "-A", "-o", "json"])) as {
      items: (Binding & { kind: string })[];
    }
  ).items.filter(b =>
    (b.subjects ?? []).some(
      s =>
        s.kind === "ServiceAccount" && s.name === ACCOUNT.name && s.namespace === ACCOUNT.namespace,
    ),
  );
  const rulesOf = (b: Binding): PolicyRule[] => {
    const namespace = b.roleRef.kind === "Role" ? b.metadata.namespace : "";
    const role = get(b.roleRef.kind.toLowerCase(), namespace ?? "", b.roleRef.name) as
      | { rules?: PolicyRule[] }
      | undefined;
    return role?.rules ?? [];
  };
  const byNamespace = new Map<string, PolicyRule[]>();
  const cluster: PolicyRule[] = [];
  for (const b of bindings) {
    if (b.kind === "ClusterRoleBinding") cluster.push(...rulesOf(b));
    else {
      const ns = b.metadata.namespace ?? "";
      byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), ...rulesOf(b)]);
    }
  }
  return { cluster, byNamespace };
}

/** Each cluster-wide rule that may write, as `verbs resources [names]`. */
export const clusterWrites = (rules: readonly PolicyRule[]): string[] =>
  rules
    .filter(r => r.verbs.some(v => WRITE_VERBS.includes(v)))
    .map(
      r =>
        `${r.verbs.filter(v => WRITE_VERBS.includes(v))} ${r.resources}` +
        (r.resourceNames ? ` [${r.resourceNames}]` : ""),
    );
