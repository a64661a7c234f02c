/**
 * The production path's manifests: what `pepr build` generates must be accepted by a real
 * apiserver (server-side dry-run: schema, RBAC objects, webhook configurations).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { env } from "./harness/env";
import { kubectl, kubectlOk } from "./harness/kubectl";
import { CRD_FILE } from "./harness/fixtures";

const manifest = join(env.repo, "dist", "pepr-module-pgkeeper.yaml");

beforeAll(() => {
  if (!existsSync(manifest))
    execFileSync("bash", [join(env.repo, "hack", "build.sh")], { cwd: env.repo, stdio: "inherit" });
  kubectl(["create", "namespace", "pepr-system"]);
}, 180_000);

it("the CRD and the pepr build manifests pass a server-side dry-run", () => {
  kubectlOk(["apply", "--server-side", "--dry-run=server", "-f", CRD_FILE]);
  const r = kubectl([
    "apply",
    "--server-side",
    "--force-conflicts",
    "--dry-run=server",
    "-f",
    manifest,
  ]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(
    /clusterrole.rbac.authorization.k8s.io\/pepr-pgkeeper .*serverside-applied/,
  );
  expect(r.stdout).toMatch(/deployment.apps\/pepr-pgkeeper-watcher .*serverside-applied/);
  expect(r.stdout).toMatch(
    /validatingwebhookconfiguration.admissionregistration.k8s.io\/pepr-pgkeeper .*serverside-applied/,
  );
});
