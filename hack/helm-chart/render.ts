/** One object → the text of its template file, with the chart's labels and its placeholders. */
import type { KubernetesObject } from "@kubernetes/client-node";
import { dump } from "js-yaml";
import { included, Placeholders } from "./placeholders";

/** The labels Helm's conventions put on every object (templates/_helpers.tpl defines them). */
export const STANDARD_LABELS = [
  "app.kubernetes.io/managed-by",
  "app.kubernetes.io/instance",
  "helm.sh/chart",
];
export const LABELS_TEMPLATE = "pgkeeper.labels";

/** Changes an object for its template, placing tokens made with `p`. */
export type Edit<T extends KubernetesObject> = (object: T, p: Placeholders) => T;

/**
 * The object's YAML with the standard labels after its own (an own label of the same key is
 * dropped: a key twice is invalid YAML) and every placeholder filled. No line folding: a token
 * must stay on its key's line.
 */
export function renderTemplate<T extends KubernetesObject>(object: T, edit?: Edit<T>): string {
  const p = new Placeholders();
  const edited = edit ? edit(object, p) : object;
  const own = Object.entries(edited.metadata?.labels ?? {}).filter(
    ([key]) => !STANDARD_LABELS.includes(key),
  );
  const labels = p.lines(included(LABELS_TEMPLATE));
  const labelled = {
    ...edited,
    metadata: { ...edited.metadata, labels: { ...Object.fromEntries(own), [labels]: "" } },
  };
  return p.fill(dump(labelled, { lineWidth: -1, noRefs: true }));
}

/** `ClusterRoleBinding` `pepr-pgkeeper` → `cluster-role-binding-pepr-pgkeeper.yaml`. */
export function templateFileName(object: KubernetesObject): string {
  const kind = (object.kind ?? "object").replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
  return `${kind}-${object.metadata?.name ?? "unnamed"}.yaml`;
}

/** Wraps a template so it renders only when `condition` (a template expression) holds. */
export const renderedIf = (condition: string, template: string): string =>
  `{{- if ${condition} }}\n${template}{{- end }}\n`;
