import type { KubernetesObject } from "@kubernetes/client-node";
import { type ChartFile, type ChartInput, helmChart } from "./chart";
import { CRD_YAML, HASH, MONITORING, moduleYamlObjects } from "./fixture";
import { wrongNamespaceMessage } from "./helpers";
import { DASHBOARD_FILE } from "./monitoring";

const input = (over: Partial<ChartInput> = {}): ChartInput => ({
  moduleObjects: moduleYamlObjects(),
  crdYaml: CRD_YAML,
  monitoring: MONITORING,
  version: "1.2.3",
  ...over,
});
const chart = (over: Partial<ChartInput> = {}): Record<string, ChartFile> => helmChart(input(over));
const text = (files: Record<string, ChartFile>, path: string): string => {
  const file = files[path];
  if (typeof file !== "string") throw new Error(`${path} is not a text file`);
  return file;
};
const templates = (files: Record<string, ChartFile>): string[] =>
  Object.keys(files).filter(p => /^templates\/[^_].*\.yaml$/.test(p));

describe("helmChart", () => {
  it("writes the chart's files, one template per object of the module YAML but its Namespace", () => {
    expect(Object.keys(chart()).sort()).toEqual(
      [
        "Chart.yaml",
        "README.md",
        "values.yaml",
        "values.schema.json",
        "crds/crd.yaml",
        `files/module-${HASH}.js.gz`,
        DASHBOARD_FILE,
        "templates/NOTES.txt",
        "templates/_helpers.tpl",
        "templates/namespace-guard.yaml",
        "templates/cluster-role-pepr-pgkeeper.yaml",
        "templates/cluster-role-binding-pepr-pgkeeper.yaml",
        "templates/service-account-pepr-pgkeeper.yaml",
        "templates/secret-pepr-pgkeeper-api-path.yaml",
        "templates/secret-pepr-pgkeeper-module.yaml",
        "templates/role-pepr-pgkeeper-store.yaml",
        "templates/role-binding-pepr-pgkeeper-store.yaml",
        "templates/deployment-pepr-pgkeeper-watcher.yaml",
        "templates/deployment-pepr-pgkeeper.yaml",
        "templates/service-pepr-pgkeeper.yaml",
        "templates/service-pepr-pgkeeper-watcher.yaml",
        "templates/validating-webhook-configuration-pepr-pgkeeper.yaml",
        "templates/service-pgkeeper-metrics.yaml",
        "templates/service-monitor-pgkeeper.yaml",
        "templates/config-map-pgkeeper-grafana-dashboard.yaml",
      ].sort(),
    );
  });

  it("labels every object with Helm's labels, after its own", () => {
    const files = chart();
    for (const path of templates(files).filter(p => p !== "templates/namespace-guard.yaml")) {
      expect([path, text(files, path)]).toEqual([
        path,
        expect.stringMatching(
          /\n {2}labels:\n( {4}[^\s].*\n)* {4}\{\{- include "pgkeeper.labels" \. \| nindent 4 \}\}\n/,
        ),
      ]);
    }
    expect(text(files, "templates/_helpers.tpl")).toMatch(
      /app\.kubernetes\.io\/managed-by: \{\{ \.Release\.Service \| quote \}\}\napp\.kubernetes\.io\/instance: \{\{ \.Release\.Name \| quote \}\}\nhelm\.sh\/chart: /,
    );
  });

  it("refuses any release namespace but the module's, naming the one to use", () => {
    const guard = text(chart(), "templates/namespace-guard.yaml");
    const message = wrongNamespaceMessage("pepr-system", "pepr-pgkeeper.pepr-system.svc");
    expect(guard).toBe(
      [
        '{{- if ne .Release.Namespace "pepr-system" }}',
        `{{- fail (printf "${message}" .Release.Namespace) }}`,
        "{{- end }}",
        "",
      ].join("\n"),
    );
    expect(message).toMatch(
      /namespace pepr-system only, not %q.*--namespace pepr-system --create-namespace$/,
    );
    expect(message).not.toMatch(/["\\]/); // inside a Go string literal
  });

  it.each([
    ["templates/service-pgkeeper-metrics.yaml", ".Values.metrics.serviceMonitor.enabled"],
    ["templates/service-monitor-pgkeeper.yaml", ".Values.metrics.serviceMonitor.enabled"],
    ["templates/config-map-pgkeeper-grafana-dashboard.yaml", ".Values.metrics.dashboard.enabled"],
  ])("renders %s only when %s", (path, condition) => {
    const template = text(chart(), path);
    expect(template.startsWith(`{{- if ${condition} }}\n`)).toBe(true);
    expect(template.endsWith("{{- end }}\n")).toBe(true);
  });

  it("labels the dashboard for Grafana's sidecar and reads it from a file, where {{pod}} is no template", () => {
    const files = chart();
    const template = text(files, "templates/config-map-pgkeeper-grafana-dashboard.yaml");
    expect(template).toContain("grafana_dashboard: '1'");
    expect(template).toContain(
      `  pgkeeper.json: |-{{ .Files.Get "${DASHBOARD_FILE}" | trimSuffix "\\n" | nindent 4 }}`,
    );
    expect(files[DASHBOARD_FILE]).toBe(MONITORING.dashboardJson);
  });

  it("moves the module's gzipped code into a file of the chart, read back by the Secret's template", () => {
    const files = chart();
    expect(Buffer.from(files[`files/module-${HASH}.js.gz`]).toString("base64")).toBe(
      "H4sIAAAAAAAAAw==",
    );
    expect(text(files, "templates/secret-pepr-pgkeeper-module.yaml")).toContain(
      `  module-${HASH}.js.gz: {{ .Files.Get "files/module-${HASH}.js.gz" | b64enc }}\n`,
    );
  });

  it("puts the CRDs into crds/ as they are, and names them in NOTES.txt", () => {
    const files = chart();
    expect(files["crds/crd.yaml"]).toBe(CRD_YAML);
    expect(text(files, "templates/NOTES.txt")).toContain(
      "The CRDs (databases.pgkeeper.dev, backups.pgkeeper.dev)",
    );
  });

  it("says in NOTES.txt and README.md that the namespace is not the chart's", () => {
    const files = chart();
    expect(text(files, "templates/NOTES.txt")).toContain("--create-namespace");
    expect(text(files, "README.md")).toContain("--namespace pepr-system --create-namespace");
    expect(text(files, "README.md")).toContain("| `watcher.replicas` | `2` |");
  });

  it("versions the chart and the app alike", () => {
    expect(text(chart(), "Chart.yaml")).toContain('version: "1.2.3"\nappVersion: "1.2.3"\n');
  });

  const inMonitoring = (o: KubernetesObject): KubernetesObject => ({
    ...o,
    metadata: { ...o.metadata, namespace: "monitoring" },
  });
  it.each<[string, Partial<ChartInput>, RegExp]>([
    [
      "a crds/ file with another kind",
      { crdYaml: "kind: Secret\n" },
      /CustomResourceDefinitions only/,
    ],
    ["an empty crds/ file", { crdYaml: "" }, /CustomResourceDefinitions only/],
    [
      "a ServiceMonitor in another namespace",
      {
        monitoring: { ...MONITORING, serviceMonitor: inMonitoring(MONITORING.serviceMonitor) },
      },
      /ServiceMonitor pgkeeper is not in pepr-system/,
    ],
    ["a broken dashboard", { monitoring: { ...MONITORING, dashboardJson: "{" } }, /JSON/],
    [
      "two objects of one kind and name",
      { moduleObjects: [...moduleYamlObjects(), moduleYamlObjects()[3]] },
      /two objects for one template/,
    ],
  ])("refuses %s", (_title, over, error) => {
    expect(() => chart(over)).toThrow(error);
  });
});
