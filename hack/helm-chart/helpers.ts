/** The chart's own templates: the labels every object gets, and the release namespace guard. */
import { LABELS_TEMPLATE } from "./render";

/** templates/_helpers.tpl: Helm's standard labels (quoted: a release may be named `123`). */
export function helpersTpl(): string {
  return [
    "{{/* The labels every object of the chart carries besides its own. */}}",
    `{{- define "${LABELS_TEMPLATE}" -}}`,
    "app.kubernetes.io/managed-by: {{ .Release.Service | quote }}",
    "app.kubernetes.io/instance: {{ .Release.Name | quote }}",
    'helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" | quote }}',
    "{{- end }}",
    "",
  ].join("\n");
}

/** What the guard says when the release namespace is another. */
export function wrongNamespaceMessage(namespace: string, certificateName: string): string {
  return (
    `pgkeeper installs into the namespace ${namespace} only, not %q: its objects live there ` +
    `and its webhook certificate is issued for ${certificateName}. ` +
    `Install with --namespace ${namespace} --create-namespace`
  );
}

/**
 * templates/namespace-guard.yaml: renders nothing, or fails the install. The module's objects
 * name their namespace and the webhook certificate is issued for the admission Service's DNS
 * name in it, both fixed when `pepr build` ran: in another namespace the webhooks would call a
 * Service that is not there (failurePolicy Fail: no Database could be created or changed).
 */
export function namespaceGuard(namespace: string, admissionService: string): string {
  const message = wrongNamespaceMessage(namespace, `${admissionService}.${namespace}.svc`);
  return [
    `{{- if ne .Release.Namespace "${namespace}" }}`,
    `{{- fail (printf "${message}" .Release.Namespace) }}`,
    "{{- end }}",
    "",
  ].join("\n");
}
