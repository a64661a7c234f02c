/**
 * pgkeeper's Helm chart, generated from the objects of `pepr build`'s YAML, which
 * deploy/operator/manifests.ts has already made production-ready (ADR 0024, ADR 0026): a pure
 * function from those objects, the CRDs, deploy/monitoring and a version to the chart's files.
 * Pepr's own chart is text it writes separately and reaches none of that hardening.
 */
import type {
  KubernetesObject,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Secret,
} from "@kubernetes/client-node";
import { dump, loadAll } from "js-yaml";
import { templatedDeployment } from "./deployment";
import { helpersTpl, namespaceGuard } from "./helpers";
import { moduleObjects, type Role, ROLES } from "./module";
import { isModuleSecret, moduleFiles, templatedModuleSecret } from "./module-secret";
import { type MonitoringInput, monitoringFiles } from "./monitoring";
import { chartReadme, notesTxt } from "./readme";
import { rbacTemplate } from "./rbac";
import { renderTemplate, templateFileName } from "./render";
import { defaultValues, valuesSchema, valuesYaml } from "./values";

export const CHART_NAME = "pgkeeper";

export interface ChartInput {
  /** The objects of dist/pepr-module-pgkeeper.yaml. */
  moduleObjects: KubernetesObject[];
  /** deploy/crd.yaml, as it is: Helm installs crds/ without templating it. */
  crdYaml: string;
  monitoring: MonitoringInput;
  /** The chart's version and appVersion (package.json's). */
  version: string;
}

const roleOf = (o: KubernetesObject): Role | undefined =>
  ROLES.find(r => o.kind === "Deployment" && o.metadata?.labels?.["pepr.dev/controller"] === r);

/** A chart file's content: text, or bytes (the module's gzipped code). */
export type ChartFile = string | Uint8Array;

function operatorTemplate(o: KubernetesObject, objects: KubernetesObject[]): string {
  const role = roleOf(o);
  if (role) return renderTemplate(o, (d, p) => templatedDeployment(d, role, p));
  if (isModuleSecret(o)) return renderTemplate(o as V1Secret, templatedModuleSecret);
  if (o.kind === "ClusterRole") {
    const bindings = objects.filter(
      b =>
        b.kind === "ClusterRoleBinding" &&
        (b as V1ClusterRoleBinding).roleRef.name === o.metadata?.name,
    );
    if (bindings.length !== 1) throw new Error(`${bindings.length} bindings of the ClusterRole`);
    return rbacTemplate(o as V1ClusterRole, bindings[0] as V1ClusterRoleBinding);
  }
  return renderTemplate(o);
}

function operatorTemplates(objects: KubernetesObject[]): Record<string, ChartFile> {
  const files = objects.map(
    o => [`templates/${templateFileName(o)}`, operatorTemplate(o, objects)] as const,
  );
  const names = files.map(([path]) => path);
  const repeated = names.filter((path, i) => names.indexOf(path) !== i);
  if (repeated.length > 0) throw new Error(`two objects for one template: ${repeated}`);
  const code = objects.filter(isModuleSecret).map(o => moduleFiles(o as V1Secret));
  if (code.length !== 1) throw new Error(`${code.length} Secrets hold the module's code, not one`);
  return { ...Object.fromEntries(files), ...code[0] };
}

const crdDocs = (crdYaml: string): KubernetesObject[] =>
  loadAll(crdYaml).filter(d => d !== null && d !== undefined) as KubernetesObject[];

const crdNames = (crdYaml: string): string[] => crdDocs(crdYaml).map(d => d.metadata?.name ?? "");

/** Only CRDs may go into crds/: Helm would install anything there unlabelled and never upgrade it. */
function checkedCrds(crdYaml: string): string {
  const docs = crdDocs(crdYaml);
  const others = docs.filter(d => d.kind !== "CustomResourceDefinition");
  if (docs.length === 0 || others.length > 0) {
    throw new Error(`crds/ takes CustomResourceDefinitions only, got ${docs.map(d => d.kind)}`);
  }
  return crdYaml;
}

function chartYaml(version: string): string {
  const chart = {
    apiVersion: "v2",
    name: CHART_NAME,
    description: "A Kubernetes operator for PostgreSQL, written as a Pepr module",
    type: "application",
    version,
    appVersion: version,
  };
  return dump(chart, { quotingType: '"', forceQuotes: true });
}

/** The chart's files, by path inside the chart directory. */
export function helmChart(input: ChartInput): Record<string, ChartFile> {
  const m = moduleObjects(input.moduleObjects);
  const values = defaultValues(m);
  return {
    "Chart.yaml": chartYaml(input.version),
    "values.yaml": valuesYaml(values),
    "values.schema.json": `${JSON.stringify(valuesSchema(), null, 2)}\n`,
    "README.md": chartReadme(m.namespace, values),
    "crds/crd.yaml": checkedCrds(input.crdYaml),
    "templates/_helpers.tpl": helpersTpl(),
    "templates/namespace-guard.yaml": namespaceGuard(m.namespace, m.admissionService),
    "templates/NOTES.txt": notesTxt(m.namespace, crdNames(input.crdYaml)),
    ...operatorTemplates(m.objects),
    ...monitoringFiles(input.monitoring, m.namespace),
  };
}
