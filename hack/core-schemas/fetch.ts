/**
 * Writes capabilities/database/api/core-v1-schemas.json from the running apiserver's OpenAPI
 * (`kubectl get --raw /openapi/v3/api/v1`, the local cluster's kubeconfig by default), for
 * hack/generate-crd.ts. test/integration/core-schemas.test.ts fails when they drift apart.
 * Usage: npx ts-node hack/core-schemas/fetch.ts [kubeconfig]
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { coreSchemas } from "./inline";

const ROOT = path.resolve(__dirname, "../..");
const kubeconfig = process.argv[2] ?? path.join(ROOT, ".work/cluster/kubeconfig");
const raw = execFileSync(
  "kubectl",
  ["--kubeconfig", kubeconfig, "get", "--raw", "/openapi/v3/api/v1"],
  { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
);
const version = JSON.parse(
  execFileSync("kubectl", ["--kubeconfig", kubeconfig, "get", "--raw", "/version"], {
    encoding: "utf8",
  }),
) as { gitVersion: string };
const file = path.join(ROOT, "capabilities/database/api/core-v1-schemas.json");
writeFileSync(
  file,
  JSON.stringify({
    source: `kube-apiserver ${version.gitVersion}`,
    ...coreSchemas(JSON.parse(raw)),
  }) + "\n",
);
execFileSync("npx", ["prettier", "--write", file], { cwd: ROOT, stdio: "ignore" });
console.log(`wrote ${path.relative(ROOT, file)} from kube-apiserver ${version.gitVersion}`);
