/**
 * What `helm template` must render from the chart (hack/helm-chart/check.sh runs real helm, then
 * check-rendered.ts runs these). Each check returns the problems it found, none when it passes.
 */
import type {
  KubernetesObject,
  V1ConfigMap,
  V1Container,
  V1Deployment,
  V1EnvVar,
  V1ClusterRole,
  V1PolicyRule,
  V1Role,
  V1RoleBinding,
  V1Service,
} from "@kubernetes/client-node";
import { DEFAULT_LEASE_NAME } from "../../capabilities/database/lib/runtime-config";
import { type Role, ROLES } from "./module";
import { DASHBOARD_CONFIGMAP } from "./monitoring";
import { WRITE_VERBS } from "./rbac";
import { STANDARD_LABELS } from "./render";
import type { ChartValues } from "./values";

export const RELEASE = "pgkeeper";
/** check-values.yaml: every value the overrides check reads, the image's tag without its repository. */
export type CheckValues = Pick<
  ChartValues,
  "imagePullSecrets" | "logLevel" | "watcher" | "admission" | "postgres" | "watchNamespaces"
> & { image: { tag: string } };
type Objects = readonly KubernetesObject[];

const deploymentOf = (objects: Objects, role: Role): V1Deployment | undefined =>
  objects.find(
    o => o.kind === "Deployment" && o.metadata?.labels?.["pepr.dev/controller"] === role,
  ) as V1Deployment | undefined;

const podOf = (d: V1Deployment | undefined) => d?.spec?.template.spec;
const envValue = (c: V1Container | undefined, name: string): string | undefined =>
  c?.env?.find((e: V1EnvVar) => e.name === name)?.value;
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const expect = (ok: boolean, problem: string): string[] => (ok ? [] : [problem]);

/** The watcher as manifests.ts hardens it: replicas, rolling update, seccomp, read-only root. */
export function watcherProblems(objects: Objects, replicas: number): string[] {
  const watcher = deploymentOf(objects, "watcher");
  if (!watcher) return ["no watcher Deployment"];
  const pod = podOf(watcher);
  const containers = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
  return [
    ...expect(watcher.spec?.replicas === replicas, `watcher replicas are not ${replicas}`),
    ...expect(watcher.spec?.strategy?.type === "RollingUpdate", "watcher strategy not rolling"),
    ...expect(
      pod?.securityContext?.seccompProfile?.type === "RuntimeDefault",
      "watcher pod without seccomp RuntimeDefault",
    ),
    ...containers
      .filter(c => c.securityContext?.readOnlyRootFilesystem !== true)
      .map(c => `watcher container ${c.name} has a writable root`),
  ];
}

/** The leader-election Lease in the operator's namespace: create, and get/update by name. */
export function leaseProblems(objects: Objects): string[] {
  const role = objects.find(o => o.kind === "Role" && o.metadata?.name?.endsWith("-store")) as
    | V1Role
    | undefined;
  const leaseRules = (role?.rules ?? []).filter(r => r.resources?.includes("leases"));
  const wanted = [
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
    {
      apiGroups: ["coordination.k8s.io"],
      resourceNames: [DEFAULT_LEASE_NAME],
      resources: ["leases"],
      verbs: ["get", "update"],
    },
  ];
  const sorted = (rule: object) => Object.fromEntries(Object.entries(rule).sort());
  return expect(
    same(leaseRules.map(sorted), wanted.map(sorted)),
    `the store Role's Lease rules are ${JSON.stringify(leaseRules)}`,
  );
}

/** Helm's labels on every object, naming the release. */
export function labelProblems(objects: Objects): string[] {
  return objects.flatMap(o => {
    const labels = o.metadata?.labels ?? {};
    const missing = STANDARD_LABELS.filter(key => !labels[key]);
    const release = labels["app.kubernetes.io/instance"];
    return [
      ...expect(missing.length === 0, `${o.kind} ${o.metadata?.name} lacks ${missing}`),
      ...expect(!release || release === RELEASE, `${o.kind} ${o.metadata?.name}: ${release}`),
    ];
  });
}

/** An object as the module YAML has it: Helm's labels off, the chart's variables as given. */
export function withoutChartChanges(o: KubernetesObject, logLevel: string): KubernetesObject {
  const labels = Object.entries(o.metadata?.labels ?? {}).filter(
    ([key]) => !STANDARD_LABELS.includes(key),
  );
  const metadata = { ...o.metadata };
  if (labels.length > 0) metadata.labels = Object.fromEntries(labels);
  else delete metadata.labels;
  if (o.kind !== "Deployment") return { ...o, metadata };
  const d = o as V1Deployment;
  const pod = podOf(d)!;
  const containers = pod.containers.map((c, i) =>
    i > 0
      ? c
      : {
          ...c,
          env: (c.env ?? [])
            .filter(e => e.name !== "PGKEEPER_IMAGE_REPOSITORY")
            .map(e => (e.name === "LOG_LEVEL" ? { ...e, value: logLevel } : e)),
        },
  );
  const template = { ...d.spec!.template, spec: { ...pod, containers } };
  return { ...d, metadata, spec: { ...d.spec!, template } } as KubernetesObject;
}

const key = (o: KubernetesObject): string => `${o.kind}/${o.metadata?.name}`;
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value && typeof value === "object"
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, v]) => [k, canonical(v)]),
        )
      : value;

/**
 * The defaults render the module YAML's objects (hardened by manifests.ts) but its Namespace,
 * with nothing else changed than Helm's labels, LOG_LEVEL and PGKEEPER_IMAGE_REPOSITORY: no
 * placeholder lost or misplaced a value.
 */
export function sameAsModuleProblems(rendered: Objects, module: Objects): string[] {
  const expected = module.filter(o => o.kind !== "Namespace");
  const logLevel = (values: Objects) =>
    envValue(podOf(deploymentOf(values, "watcher"))?.containers[0], "LOG_LEVEL") ?? "";
  const level = logLevel(rendered);
  const byKey = new Map(rendered.map(o => [key(o), withoutChartChanges(o, level)]));
  const names = (objects: Objects) => objects.map(key).sort();
  return [
    ...expect(
      same(names(rendered), names(expected)),
      `objects ${names(rendered)} ≠ ${names(expected)}`,
    ),
    ...expected
      .filter(o => byKey.has(key(o)))
      .filter(o => !same(canonical(byKey.get(key(o))), canonical(withoutChartChanges(o, level))))
      .map(o => `${key(o)} differs from the module YAML's`),
  ];
}

/** The operator's environment check-values.yaml sets, by variable. */
const expectedEnv = (values: CheckValues): [string, string][] => [
  ["LOG_LEVEL", values.logLevel],
  ["PGKEEPER_IMAGE_REPOSITORY", values.postgres.imageRepository],
  ["PGKEEPER_IMAGE_PULL_SECRETS", values.postgres.imagePullSecrets.join(",")],
  ["PGKEEPER_ALLOWED_IMAGES", values.postgres.allowedImages.join(",")],
  ["PGKEEPER_WATCH_NAMESPACES", values.watchNamespaces.join(",")],
];

const writes = (rule: V1PolicyRule): string[] =>
  rule.verbs.filter(verb => WRITE_VERBS.includes(verb));

/** The one cluster-wide write a namespaced install keeps: Pepr's controller exits without it. */
const isPeprStoreCrdPatch = (rule: V1PolicyRule): boolean =>
  same(rule.resources, ["customresourcedefinitions"]) &&
  same(rule.resourceNames, ["peprstores.pepr.dev"]) &&
  same(rule.verbs, ["patch"]);

/**
 * A namespaced install (`watchNamespaces`): no write verb in any ClusterRole but Pepr's own CRD
 * patch, by name; in each listed namespace a Role with the operator's rules on Databases and their
 * objects, bound to the operator's ServiceAccount; no Role anywhere else but its own namespace's.
 */
export function namespacedRbacProblems(objects: Objects, values: CheckValues): string[] {
  const clusterWrites = objects
    .filter(o => o.kind === "ClusterRole")
    .flatMap(o => ((o as V1ClusterRole).rules ?? []).map(rule => ({ o, rule })))
    .filter(({ rule }) => writes(rule).length > 0 && !isPeprStoreCrdPatch(rule))
    .map(({ o, rule }) => `ClusterRole ${o.metadata?.name} may ${writes(rule)} ${rule.resources}`);
  const inNamespace = (kind: string, namespace: string) =>
    objects.filter(o => o.kind === kind && o.metadata?.namespace === namespace);
  const served = values.watchNamespaces.flatMap(namespace => {
    const roles = inNamespace("Role", namespace) as V1Role[];
    const bindings = inNamespace("RoleBinding", namespace) as V1RoleBinding[];
    const databases = roles.some(r =>
      (r.rules ?? []).some(
        rule => rule.resources?.includes("databases") && rule.verbs.includes("watch"),
      ),
    );
    const bound = bindings.some(b =>
      (b.subjects ?? []).some(s => s.kind === "ServiceAccount" && s.name === "pepr-pgkeeper"),
    );
    return [
      ...expect(databases, `no Role in ${namespace} lets the operator watch Databases`),
      ...expect(bound, `no RoleBinding in ${namespace} names the operator's ServiceAccount`),
    ];
  });
  const allowed = new Set([...values.watchNamespaces, "pepr-system"]);
  const elsewhere = objects
    .filter(o => o.kind === "Role" && !allowed.has(o.metadata?.namespace ?? ""))
    .map(o => `a Role in ${o.metadata?.namespace}, which the install does not serve`);
  return [...clusterWrites, ...served, ...elsewhere];
}

function roleOverrideProblems(objects: Objects, role: Role, values: CheckValues): string[] {
  const d = deploymentOf(objects, role);
  const pod = podOf(d);
  const images = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])].map(c => c.image);
  const pullSecrets = values.imagePullSecrets.map(name => ({ name }));
  return [
    ...expect(d?.spec?.replicas === values[role].replicas, `${role} replicas`),
    ...expect(
      same(pod?.imagePullSecrets, pullSecrets),
      `${role} imagePullSecrets: ${JSON.stringify(pod?.imagePullSecrets)}`,
    ),
    ...expect(
      images.every(i => i?.endsWith(`:${values.image.tag}`)),
      `${role} images ${images}`,
    ),
    ...expectedEnv(values)
      .filter(([name, value]) => envValue(pod?.containers[0], name) !== value)
      .map(([name]) => `${role} ${name} is not the value's`),
  ];
}

/** The values of check-values.yaml, rendered where they belong. */
export function overrideProblems(objects: Objects, values: CheckValues): string[] {
  return ROLES.flatMap(role => roleOverrideProblems(objects, role, values));
}

const named = <T>(objects: Objects, kind: string, name?: string): T | undefined =>
  objects.find(o => o.kind === kind && (name === undefined || o.metadata?.name === name)) as
    | T
    | undefined;

/** The Service selects the watcher pods (by labels they all have), and not nothing. */
function selectsWatchers(objects: Objects, service: V1Service | undefined): boolean {
  const podLabels = deploymentOf(objects, "watcher")?.spec?.template.metadata?.labels ?? {};
  const selector = Object.entries(service?.spec?.selector ?? {});
  return selector.length > 0 && selector.every(([k, v]) => podLabels[k] === v);
}

/** Metrics on: the Service selects the watcher pods, the ServiceMonitor it, the dashboard is whole. */
export function monitoringProblems(objects: Objects, dashboardJson: string): string[] {
  const service = named<V1Service>(objects, "Service", "pgkeeper-metrics");
  const dashboard = named<V1ConfigMap>(objects, "ConfigMap", DASHBOARD_CONFIGMAP);
  const labels = dashboard?.metadata?.labels ?? {};
  const data = dashboard?.data ?? {};
  return [
    ...expect(selectsWatchers(objects, service), "no metrics Service selecting the watcher pods"),
    ...expect(named(objects, "ServiceMonitor") !== undefined, "no ServiceMonitor"),
    ...expect(labels.grafana_dashboard === "1", "no dashboard ConfigMap labelled for Grafana"),
    ...expect(
      data["pgkeeper.json"] === dashboardJson.replace(/\n$/, ""),
      "the dashboard differs from its file",
    ),
  ];
}

/** Metrics off (the default): none of it. */
export function noMonitoringProblems(objects: Objects): string[] {
  return objects
    .filter(
      o =>
        o.kind === "ServiceMonitor" ||
        o.metadata?.name === "pgkeeper-metrics" ||
        o.metadata?.name === DASHBOARD_CONFIGMAP,
    )
    .map(o => `${key(o)} rendered with metrics off`);
}
