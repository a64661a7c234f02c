/**
 * The production path on the local node: `pepr deploy` alone runs the watcher (two replicas, one
 * leader) and admission Deployments in the cluster, hardened as deploy/operator/manifests.ts says
 * (ADR 0024); webhooks are reached through their Service. One install serves two suites: what the
 * install does (in-cluster/install.ts), then the fault matrix and two operator upgrades under
 * write load (in-cluster/under-load.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { env } from "../integration/harness/env";
import { installCrd } from "../integration/harness/fixtures";
import { kubectlOk } from "../integration/harness/kubectl";
import { installedByPeprDeploy } from "./in-cluster/install";
import { underLoadInTheCluster } from "./in-cluster/under-load";
import { awaitRollout, controllerImage, deploy, removeDeployed } from "./installed-operator";
import { imageRepository } from "./registry";

/** The controller image, pulled from the local cluster's registry as in production. */
const IMAGE = controllerImage(imageRepository());

interface Binding {
  kind: string;
  metadata: { namespace?: string };
  roleRef: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/**
 * The ClusterRoles and Roles bound to the operator's ServiceAccount, as they are live, saved for
 * hack/rbac-audit (run by hack/test-e2e.sh after the whole tier).
 */
function saveGrantedRbac(): void {
  const bindings = JSON.parse(
    kubectlOk(["get", "clusterrolebindings,rolebindings", "-A", "-o", "json"]),
  ) as { items: Binding[] };
  const toOperator = bindings.items.filter(b =>
    (b.subjects ?? []).some(
      s =>
        s.kind === "ServiceAccount" && s.name === "pepr-pgkeeper" && s.namespace === "pepr-system",
    ),
  );
  const roles = toOperator.map(
    b =>
      JSON.parse(
        kubectlOk(
          b.roleRef.kind === "ClusterRole"
            ? ["get", "clusterrole", b.roleRef.name, "-o", "json"]
            : ["get", "role", b.roleRef.name, "-n", b.metadata.namespace ?? "", "-o", "json"],
        ),
      ) as unknown,
  );
  const dir = join(env.work, "audit");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "granted.json"), JSON.stringify(roles, null, 2));
}

beforeAll(async () => {
  await installCrd();
  // The Backup CRD goes (with every Backup: the earlier suites' namespaces are being deleted):
  // the installed operator's leader must create it again, alone.
  kubectlOk(["delete", "customresourcedefinition", "backups.pgkeeper.dev", "--wait=true"]);
  // Where the operator's PostgreSQL images are comes from pepr deploy's environment
  // (PGKEEPER_IMAGE_REPOSITORY: the registry's, exported by hack/test-e2e.sh).
  await deploy(IMAGE, {}, "in-cluster");
  saveGrantedRbac();
  await awaitRollout();
}, 900_000);

afterAll(() => removeDeployed(), 180_000);

describe("installed by pepr deploy alone", () => installedByPeprDeploy(IMAGE));

describe("a 3-instance quorum Database under write load, the operator in the cluster", () =>
  underLoadInTheCluster(IMAGE));
