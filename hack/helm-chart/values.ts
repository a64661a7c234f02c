/**
 * The chart's values: their defaults (taken from the module YAML where it holds them, so the
 * chart's defaults install what `pepr deploy` would), what each means (values.yaml's comments,
 * the chart's README, docs/install.md), and their JSON schema (values.schema.json: Helm refuses
 * a value of the wrong type or a misspelt key before rendering anything).
 */
import type { V1Container, V1ResourceRequirements } from "@kubernetes/client-node";
import { dump } from "js-yaml";
import { DEFAULT_IMAGE_REPOSITORY } from "../../capabilities/database/lib/config";
import { type ModuleObjects, type Role, ROLES, splitImage } from "./module";

export interface ChartValues {
  image: { repository: string; tag: string };
  imagePullSecrets: string[];
  logLevel: string;
  watcher: { replicas: number; resources: V1ResourceRequirements };
  admission: { replicas: number; resources: V1ResourceRequirements };
  postgres: { imageRepository: string; imagePullSecrets: string[]; allowedImages: string[] };
  watchNamespaces: string[];
  metrics: { serviceMonitor: { enabled: boolean }; dashboard: { enabled: boolean } };
}

/** Pepr's logger (pino) levels: LOG_LEVEL sets it, and pgkeeper logs through it too. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
/**
 * Not the module YAML's LOG_LEVEL: `pepr build` writes the LOG_LEVEL of the shell that ran it
 * (the test tiers' `silent`), not a choice for an install.
 */
export const DEFAULT_LOG_LEVEL = "info";

/** The operator's container of a Deployment: the first (manifests.ts adds init containers only). */
export const mainContainer = (m: ModuleObjects, role: Role): V1Container =>
  m.deployments[role].spec!.template.spec!.containers[0];

const envOf = (m: ModuleObjects, role: Role, name: string): string | undefined =>
  mainContainer(m, role).env?.find(e => e.name === name)?.value;

/** A comma-separated list, as the operator reads it. */
const names = (list: string | undefined): string[] =>
  (list ?? "")
    .split(",")
    .map(name => name.trim())
    .filter(name => name !== "");

/** The defaults: what the module YAML's objects hold, so a plain install is `pepr deploy`'s. */
export function defaultValues(m: ModuleObjects): ChartValues {
  const perRole = (role: Role) => ({
    replicas: m.deployments[role].spec!.replicas ?? 1,
    resources: mainContainer(m, role).resources ?? {},
  });
  const image = mainContainer(m, "watcher").image;
  if (!image) throw new Error("the watcher container has no image");
  const admissionImage = mainContainer(m, "admission").image;
  if (admissionImage !== image) throw new Error(`two operator images: ${image}, ${admissionImage}`);
  return {
    image: splitImage(image),
    imagePullSecrets: (m.deployments.watcher.spec?.template.spec?.imagePullSecrets ?? []).flatMap(
      s => (s.name ? [s.name] : []),
    ),
    logLevel: DEFAULT_LOG_LEVEL,
    watcher: perRole("watcher"),
    admission: perRole("admission"),
    postgres: {
      // `pepr build` copies these from its environment (manifests.ts), or package.json's
      // pepr.env set them: the chart keeps them as its defaults.
      imageRepository: envOf(m, "watcher", "PGKEEPER_IMAGE_REPOSITORY") ?? DEFAULT_IMAGE_REPOSITORY,
      imagePullSecrets: names(envOf(m, "watcher", "PGKEEPER_IMAGE_PULL_SECRETS")),
      allowedImages: names(envOf(m, "watcher", "PGKEEPER_ALLOWED_IMAGES")),
    },
    // The whole cluster, as `pepr deploy` installs it.
    watchNamespaces: [],
    metrics: { serviceMonitor: { enabled: false }, dashboard: { enabled: false } },
  };
}

/** What each value means, by its path; every leaf of ChartValues has a line (tested). */
export const VALUE_DOCS: Readonly<Record<string, string>> = {
  "image.repository": "the operator's image (the controller image the module runs in)",
  "image.tag": "its tag",
  imagePullSecrets: "Secrets (names, in the release namespace) to pull the operator's image",
  logLevel: `\`LOG_LEVEL\` of the operator's processes: ${LOG_LEVELS.join(", ")}`,
  "watcher.replicas": "watcher pods: one leader reconciles, the others stand by to take over",
  "watcher.resources": "the watcher container's requests and limits",
  "admission.replicas": "admission webhook pods",
  "admission.resources": "the admission container's requests and limits",
  "postgres.imageRepository":
    "`PGKEEPER_IMAGE_REPOSITORY`: where pgkeeper's PostgreSQL images are (`<repository>/postgres:<major>`)",
  "postgres.imagePullSecrets":
    "`PGKEEPER_IMAGE_PULL_SECRETS`: pull Secrets (names) every Database gets when its spec names none",
  "postgres.allowedImages":
    "`PGKEEPER_ALLOWED_IMAGES`: the images `spec.image` may name (`registry/path/` everything under it, `registry/path/repo` one repository); empty allows any",
  watchNamespaces:
    "`PGKEEPER_WATCH_NAMESPACES`: a namespaced install: Databases only in these namespaces (refused elsewhere), the operator's write rights in Roles there and none cluster-wide (docs/install.md); empty: the whole cluster",
  "metrics.serviceMonitor.enabled":
    "a metrics Service and a Prometheus Operator ServiceMonitor for the watchers",
  "metrics.dashboard.enabled":
    'a ConfigMap with the Grafana dashboard, labelled `grafana_dashboard: "1"` for its sidecar',
};

/** values.yaml: the defaults, each key preceded by what it means. */
export function valuesYaml(values: ChartValues): string {
  const header = [
    "# pgkeeper's chart, generated from the module's manifests by hack/helm-chart (do not edit).",
    "# Install into the namespace pepr-system only: see README.md.",
    "",
  ];
  return [...header, ...commented(dump(values, { lineWidth: -1 }), VALUE_DOCS)].join("\n");
}

/**
 * The lines of `yaml` (a dumped map, two spaces per level) with `# doc` before each key whose
 * dotted path has a doc. List items and their contents are not keys of the values.
 */
export function commented(yaml: string, docs: Readonly<Record<string, string>>): string[] {
  const path: string[] = [];
  return yaml.split("\n").flatMap(line => {
    const key = /^( *)([^\s:#-][^:]*):(?: |$)/.exec(line);
    if (!key) return [line];
    const depth = key[1].length / 2;
    path.splice(depth, path.length, key[2]);
    const doc = docs[path.join(".")];
    return doc ? [`${key[1]}# ${doc}`, line] : [line];
  });
}

const DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
const secretNames = {
  type: "array",
  items: { type: "string", maxLength: 253, pattern: DNS_SUBDOMAIN },
  uniqueItems: true,
};
const quantities = { type: "object", additionalProperties: { type: ["string", "number"] } };
const resources = {
  type: "object",
  additionalProperties: false,
  properties: { requests: quantities, limits: quantities },
};
const strictObject = (properties: Record<string, unknown>) => ({
  type: "object",
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});
const pods = (minimum: number) =>
  strictObject({ replicas: { type: "integer", minimum }, resources });

/** values.schema.json: types, the known keys only, Secret names as Kubernetes takes them. */
export function valuesSchema(): Record<string, unknown> {
  const byRole = Object.fromEntries(ROLES.map(role => [role, pods(1)]));
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "pgkeeper",
    ...strictObject({
      image: strictObject({
        repository: { type: "string", minLength: 1 },
        tag: { type: "string", minLength: 1 },
      }),
      imagePullSecrets: secretNames,
      logLevel: { type: "string", enum: LOG_LEVELS },
      ...byRole,
      postgres: strictObject({
        imageRepository: { type: "string", minLength: 1 },
        imagePullSecrets: secretNames,
        allowedImages: {
          type: "array",
          items: { type: "string", minLength: 1, pattern: "^[^,\\s]+$" },
          uniqueItems: true,
        },
      }),
      watchNamespaces: {
        type: "array",
        items: { type: "string", maxLength: 63, pattern: DNS_LABEL },
        uniqueItems: true,
      },
      metrics: strictObject({
        serviceMonitor: strictObject({ enabled: { type: "boolean" } }),
        dashboard: strictObject({ enabled: { type: "boolean" } }),
      }),
    }),
  };
}
