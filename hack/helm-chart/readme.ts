/** The chart's NOTES.txt (shown after install and upgrade) and README.md. */
import { type ChartValues, VALUE_DOCS } from "./values";

/** templates/NOTES.txt: a template, rendered with the release's values. */
export function notesTxt(namespace: string, crds: readonly string[]): string {
  return `pgkeeper {{ .Chart.AppVersion }} is installed as the release {{ .Release.Name }} in ${namespace}:
{{ .Values.watcher.replicas }} watcher pod(s) (one leader reconciles; kubectl -n ${namespace} get lease pgkeeper-leader
shows which) and {{ .Values.admission.replicas }} admission pod(s) behind the webhooks for Databases.

- The namespace ${namespace} is not part of the release (--create-namespace made it): helm uninstall
  leaves it, with the Lease and Pepr's PeprStore.
- The CRDs (${crds.join(", ")}) come from the chart's crds/ on the first
  install only; Helm never upgrades or deletes them, so Databases survive helm uninstall. The
  operator's leader applies the CRDs of its own version when it starts leading.
- A Database without spec.image runs {{ .Values.postgres.imageRepository }}/postgres:<major>.
{{- if .Values.metrics.serviceMonitor.enabled }}
- Metrics: the ServiceMonitor pgkeeper scrapes the watchers through the Service pgkeeper-metrics.
{{- end }}

  kubectl get pgdb -A        # the Databases
`;
}

const cell = (value: unknown): string => `\`${JSON.stringify(value)}\``;

/** The values table: every documented value, its default, what it means. */
export function valuesTable(values: ChartValues): string {
  const at = (path: string): unknown =>
    path.split(".").reduce<unknown>((v, key) => (v as Record<string, unknown>)[key], values);
  return [
    "| value | default | meaning |",
    "| ----- | ------- | ------- |",
    ...Object.entries(VALUE_DOCS).map(
      ([path, doc]) => `| \`${path}\` | ${cell(at(path))} | ${doc} |`,
    ),
  ].join("\n");
}

/** README.md: what the chart holds and how to install it; the values with this build's defaults. */
export function chartReadme(namespace: string, values: ChartValues): string {
  return `# pgkeeper

A Kubernetes operator for PostgreSQL, as a Helm chart generated from the manifests \`pepr build\`
writes for it (hardened by pgkeeper's deploy/operator/manifests.ts): two watcher pods, one of them
leader, with a rolling update; seccomp RuntimeDefault and a read-only root; a Lease for leader
election in ${namespace} only. See docs/install.md in pgkeeper's repository.

## Install

The chart installs into the namespace ${namespace} only (its webhook certificate is issued for a
Service there) and does not create it:

\`\`\`sh
helm install pgkeeper ./pgkeeper-helm --namespace ${namespace} --create-namespace
helm upgrade pgkeeper ./pgkeeper-helm --namespace ${namespace}
helm uninstall pgkeeper --namespace ${namespace}
\`\`\`

The CRDs are in \`crds/\`: Helm installs them on the first install and never upgrades or deletes
them, so Databases and Backups stay after an uninstall. Uninstalling removes the admission
webhooks: until pgkeeper is installed again, changes to Databases are checked by the CRD's CEL
rules only. The operator's leader applies the CRDs of its own version itself.

## Values

${valuesTable(values)}
`;
}
