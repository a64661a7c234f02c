/**
 * The core/v1 schemas the Database CRD inlines (api/core-v1-schemas.json) are this apiserver's:
 * regenerate with `npx ts-node hack/core-schemas/fetch.ts` (then `npm run crd:generate`) when
 * the cluster's Kubernetes moves.
 */
import { execFileSync } from "node:child_process";
import snapshot from "../../capabilities/database/api/core-v1-schemas.json";
import { coreSchemas } from "../../hack/core-schemas/inline";
import { env } from "./harness/env";

it("core-v1-schemas.json is what the apiserver publishes for Toleration and Affinity", () => {
  const openapi = execFileSync(
    env.kubectl,
    ["--kubeconfig", env.kubeconfig, "get", "--raw", "/openapi/v3/api/v1"],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const { source: _source, ...schemas } = snapshot;
  expect(coreSchemas(JSON.parse(openapi))).toEqual(schemas);
});
