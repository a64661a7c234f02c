/**
 * The operator's RBAC in the chart: as `pepr build` wrote it (one ClusterRole, cluster-wide), or,
 * with the value `watchNamespaces`, a namespaced install (ADR 0031): a Role in each listed
 * namespace with what the operator does to Databases' objects, a Role in its own namespace for
 * its PeprStore and its own pod, and a ClusterRole left with cluster-scoped reads and the one
 * write Pepr's controller cannot start without (re-applying its PeprStore CRD, by name).
 */
import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1PolicyRule,
  V1Role,
  V1RoleBinding,
} from "@kubernetes/client-node";
import { OWN_CRDS } from "../../deploy/operator/manifests";
import { LABELS_TEMPLATE, renderTemplate } from "./render";

/** Resources that are not namespaced, which only a ClusterRole can grant. */
const CLUSTER_SCOPED = new Set([
  "apiextensions.k8s.io/customresourcedefinitions",
  "storage.k8s.io/storageclasses",
]);

/** What the operator does in its own namespace: Pepr's store, and its own pod's deletion cost. */
const OWN_NAMESPACE_GROUPS = new Set(["pepr.dev"]);
const OWN_POD_RULE: V1PolicyRule = { apiGroups: [""], resources: ["pods"], verbs: ["patch"] };

export interface ScopedRules {
  /** Cluster-scoped resources: reads, and Pepr's PeprStore CRD by name. */
  cluster: V1PolicyRule[];
  /** In each namespace the install serves. */
  served: V1PolicyRule[];
  /** In the operator's own namespace. */
  own: V1PolicyRule[];
}

const resourcesOf = (rule: V1PolicyRule): string[] =>
  (rule.apiGroups ?? [""]).flatMap(group =>
    (rule.resources ?? []).map(resource => `${group}/${resource}`),
  );

/** pgkeeper's CRDs, which a namespaced install's installer brings (Helm's crds/). */
const installsOwnCrds = (rule: V1PolicyRule): boolean =>
  (rule.resourceNames ?? []).some(name => OWN_CRDS.includes(name));

/**
 * The ClusterRole's rules sorted by where a namespaced install needs them. A rule must be all of
 * one kind (Pepr and package.json write one group per rule): a mixed one throws, so a new rule
 * cannot quietly land cluster-wide.
 */
export function scopedRules(rules: readonly V1PolicyRule[]): ScopedRules {
  const out: ScopedRules = { cluster: [], served: [], own: [OWN_POD_RULE] };
  for (const rule of rules) {
    const resources = resourcesOf(rule);
    const clusterScoped = resources.filter(r => CLUSTER_SCOPED.has(r));
    const own = (rule.apiGroups ?? [""]).filter(g => OWN_NAMESPACE_GROUPS.has(g));
    if (clusterScoped.length > 0 && clusterScoped.length < resources.length) {
      throw new Error(`a rule mixes cluster-scoped and namespaced resources: ${resources}`);
    }
    if (own.length > 0 && own.length < (rule.apiGroups ?? [""]).length) {
      throw new Error(`a rule mixes the operator's own groups with others: ${rule.apiGroups}`);
    }
    if (clusterScoped.length > 0) {
      if (!installsOwnCrds(rule)) out.cluster.push(rule);
    } else if (own.length > 0) {
      out.own.push(rule);
    } else {
      out.served.push(rule);
    }
  }
  return out;
}

/** Verbs that change something (a namespaced install's ClusterRole has one, named below). */
export const WRITE_VERBS = ["create", "update", "patch", "delete", "deletecollection", "*"];

const role = (name: string, rules: V1PolicyRule[]): V1Role => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "Role",
  metadata: { name },
  rules,
});

const binding = (name: string, account: { name: string; namespace: string }): V1RoleBinding => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "RoleBinding",
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
  subjects: [{ kind: "ServiceAccount", ...account }],
});

/** Inside `range`, `.` is the item: the labels template needs the root context. */
const withRootContext = (template: string): string =>
  template.split(`include "${LABELS_TEMPLATE}" .`).join(`include "${LABELS_TEMPLATE}" $`);

/** Objects in each listed namespace: `range` over them, the namespace being the item. */
function inEachServedNamespace(objects: (V1Role | V1RoleBinding)[]): string[] {
  const templates = objects.map(object =>
    withRootContext(
      renderTemplate(object, (o, p) => ({
        ...o,
        metadata: { ...o.metadata, namespace: p.value("{{ . | quote }}") },
      })),
    ),
  );
  return [
    "{{- range .Values.watchNamespaces }}",
    ...templates.flatMap(t => ["---", t.trimEnd()]),
    "{{- end }}",
  ];
}

const inNamespace = <T extends V1Role | V1RoleBinding>(object: T, namespace: string): T => ({
  ...object,
  metadata: { ...object.metadata, namespace },
});

/**
 * templates/cluster-role-<name>.yaml: the ClusterRole as built, or with `watchNamespaces` the
 * cluster-scoped part of it and the Roles and bindings of the namespaced install. The
 * ClusterRoleBinding (its own template) binds whichever ClusterRole renders.
 */
export function rbacTemplate(clusterRole: V1ClusterRole, crb: V1ClusterRoleBinding): string {
  const name = clusterRole.metadata!.name!;
  const account = crb.subjects?.find(s => s.kind === "ServiceAccount");
  if (!account?.namespace) throw new Error(`${crb.metadata?.name} binds no ServiceAccount`);
  const subject = { name: account.name, namespace: account.namespace };
  const rules = scopedRules(clusterRole.rules ?? []);
  const own = `${name}-own`;
  return [
    "{{- if .Values.watchNamespaces }}",
    renderTemplate({ ...clusterRole, rules: rules.cluster }).trimEnd(),
    ...inEachServedNamespace([role(name, rules.served), binding(name, subject)]),
    "---",
    renderTemplate(inNamespace(role(own, rules.own), subject.namespace)).trimEnd(),
    "---",
    renderTemplate(inNamespace(binding(own, subject), subject.namespace)).trimEnd(),
    "{{- else }}",
    renderTemplate(clusterRole).trimEnd(),
    "{{- end }}",
    "",
  ].join("\n");
}
