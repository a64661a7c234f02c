/**
 * Writes pgkeeper's Helm chart into dist/pgkeeper-helm from dist/pepr-module-pgkeeper.yaml
 * (run after `pepr build`: hack/build.sh does), deploy/crd.yaml, Pepr's PeprStore CRD and
 * deploy/monitoring.
 *   npx ts-node hack/helm-chart/generate.ts
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { dump, load, loadAll } from "js-yaml";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { helmChart } from "./chart";
import { peprStoreCrd } from "./pepr-store-crd";

const root = join(__dirname, "..", "..");
const read = (path: string): string => readFileSync(join(root, path), "utf8");
const object = (path: string): KubernetesObject => load(read(path)) as KubernetesObject;

const files = helmChart({
  moduleObjects: loadAll(read("dist/pepr-module-pgkeeper.yaml")).filter(
    Boolean,
  ) as KubernetesObject[],
  // pgkeeper's CRDs and Pepr's PeprStore CRD (which pepr deploy applies itself).
  crdYaml: `${read("deploy/crd.yaml").trimEnd()}\n---\n${dump(peprStoreCrd(), { lineWidth: -1 })}`,
  monitoring: {
    metricsService: object("deploy/monitoring/metrics-service.yaml"),
    serviceMonitor: object("deploy/monitoring/servicemonitor.yaml"),
    dashboardJson: read("deploy/monitoring/grafana-dashboard.json"),
  },
  version: (JSON.parse(read("package.json")) as { version: string }).version,
});

// A fresh directory: a template of an object the module no longer has must not stay behind.
const out = join(root, "dist", "pgkeeper-helm");
rmSync(out, { recursive: true, force: true });
for (const [path, content] of Object.entries(files)) {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  writeFileSync(join(out, path), content);
}
console.log(`chart: dist/pgkeeper-helm (${Object.keys(files).length} files)`);
