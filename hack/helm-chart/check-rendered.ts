/**
 * Checks what real helm rendered (hack/helm-chart/check.sh): exit 1 and the problems, if any.
 *   ts-node hack/helm-chart/check-rendered.ts <defaults render> <check-values.yaml render>
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { load, loadAll } from "js-yaml";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  labelProblems,
  leaseProblems,
  monitoringProblems,
  namespacedRbacProblems,
  noMonitoringProblems,
  overrideProblems,
  sameAsModuleProblems,
  watcherProblems,
  type CheckValues,
} from "./rendered-checks";

const root = join(__dirname, "..", "..");
const objects = (path: string): KubernetesObject[] =>
  loadAll(readFileSync(path, "utf8")).filter(Boolean) as KubernetesObject[];

const [defaultsPath, overridesPath] = process.argv.slice(2);
if (!defaultsPath || !overridesPath) {
  console.error("usage: check-rendered.ts <defaults render> <overrides render>");
  process.exit(2);
}
const moduleYaml = objects(join(root, "dist", "pepr-module-pgkeeper.yaml"));
const defaults = objects(defaultsPath);
const overrides = objects(overridesPath);
const values = load(readFileSync(join(__dirname, "check-values.yaml"), "utf8")) as CheckValues;
const dashboard = readFileSync(
  join(root, "deploy", "monitoring", "grafana-dashboard.json"),
  "utf8",
);

const checks: [string, string[]][] = [
  [
    "defaults: the module YAML's objects, but its Namespace",
    sameAsModuleProblems(defaults, moduleYaml),
  ],
  ["defaults: two watchers, rolling, seccomp, read-only root", watcherProblems(defaults, 2)],
  ["defaults: the Lease rules", leaseProblems(defaults)],
  ["defaults: Helm's labels on every object", labelProblems(defaults)],
  ["defaults: no monitoring objects", noMonitoringProblems(defaults)],
  ["overrides: watchers hardened", watcherProblems(overrides, values.watcher?.replicas ?? 0)],
  ["overrides: replicas, pull Secrets, images, environment", overrideProblems(overrides, values)],
  [
    "overrides: metrics Service, ServiceMonitor, dashboard",
    monitoringProblems(overrides, dashboard),
  ],
  ["overrides: Helm's labels on every object", labelProblems(overrides)],
  [
    "overrides: a namespaced install (Roles where it serves, no cluster-wide write)",
    namespacedRbacProblems(overrides, values),
  ],
  [
    "defaults: a cluster-wide install is not namespaced (the check sees the difference)",
    namespacedRbacProblems(defaults, { ...values }).length > 0
      ? []
      : ["the defaults render would pass as a namespaced install"],
  ],
];
let failed = 0;
for (const [name, problems] of checks) {
  console.log(`${problems.length === 0 ? "ok  " : "FAIL"} ${name}`);
  for (const problem of problems) console.log(`       ${problem}`);
  if (problems.length > 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
