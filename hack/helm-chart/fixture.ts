/**
 * For the tests: the objects of a module YAML as `pepr build` writes them, cut to what the chart
 * reads, with the Deployments and RBAC passed through deploy/operator/manifests.ts as the patched
 * Pepr does, so the tests see what manifests.ts makes of them today.
 */
import type { KubernetesObject, V1Deployment, V1EnvVar } from "@kubernetes/client-node";
import { customizeManifest } from "../../deploy/operator/manifests";

export const HASH = "b".repeat(64);
export const NAMESPACE = "pepr-system";
export const IMAGE = "registry.example.com:5000/pgkeeper/controller:v9";
const NAME = "pepr-pgkeeper";

function peprDeployment(
  role: "watcher" | "admission",
  env: V1EnvVar[],
  pullSecret?: string,
): V1Deployment {
  const app = role === "watcher" ? `${NAME}-watcher` : NAME;
  const labels = { app, "pepr.dev/controller": role };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: app,
      namespace: NAMESPACE,
      labels: { ...labels, "pepr.dev/uuid": "pgkeeper" },
    },
    spec: {
      replicas: role === "watcher" ? 1 : 2,
      ...(role === "watcher" ? { strategy: { type: "Recreate" } } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          securityContext: { runAsUser: 65532, runAsNonRoot: true, fsGroup: 65532 },
          serviceAccountName: NAME,
          ...(pullSecret ? { imagePullSecrets: [{ name: pullSecret }] } : {}),
          containers: [
            {
              name: role === "watcher" ? "watcher" : "server",
              image: IMAGE,
              imagePullPolicy: "IfNotPresent",
              args: ["/app/node_modules/pepr/dist/controller.js", HASH],
              env: [
                { name: "PEPR_WATCH_MODE", value: String(role === "watcher") },
                { name: "PEPR_PRETTY_LOG", value: "false" },
                { name: "LOG_LEVEL", value: "silent" },
                ...env,
              ],
              resources: {
                requests: { memory: "256Mi", cpu: "200m" },
                limits: { memory: "512Mi", cpu: "500m" },
              },
              securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false },
            },
          ],
          volumes: [{ name: "tls-certs", secret: { secretName: `${NAME}-tls` } }],
        },
      },
    },
  };
}

const at = (kind: string, name: string, rest: object = {}): KubernetesObject =>
  ({
    apiVersion: "v1",
    kind,
    metadata: { name, ...(kind.startsWith("Cluster") ? {} : { namespace: NAMESPACE }) },
    ...rest,
  }) as KubernetesObject;

/**
 * The module YAML's objects; `env` is added to both operator containers (package.json's pepr.env
 * or the build's environment), `pullSecret` to both pods (`pepr build --with-pull-secret`).
 */
export function moduleYamlObjects(env: V1EnvVar[] = [], pullSecret?: string): KubernetesObject[] {
  const objects: KubernetesObject[] = [
    {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: NAMESPACE, labels: { "pepr.dev": "" } },
    },
    at("ClusterRole", NAME, {
      rules: [
        { apiGroups: ["pgkeeper.dev"], resources: ["databases"], verbs: ["get", "watch"] },
        {
          apiGroups: ["apiextensions.k8s.io"],
          resources: ["customresourcedefinitions"],
          verbs: ["patch", "create"],
        },
      ],
    }),
    at("ClusterRoleBinding", NAME, {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: NAME },
      subjects: [{ kind: "ServiceAccount", name: NAME, namespace: NAMESPACE }],
    }),
    at("ServiceAccount", NAME),
    at("Secret", `${NAME}-api-path`, { data: { value: "YXBp" } }),
    at("Secret", `${NAME}-module`, { data: { [`module-${HASH}.js.gz`]: "H4sIAAAAAAAAAw==" } }),
    at("Role", `${NAME}-store`, {
      rules: [{ apiGroups: ["pepr.dev"], resources: ["peprstores"], verbs: ["get"] }],
    }),
    at("RoleBinding", `${NAME}-store`, {
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${NAME}-store` },
      subjects: [{ kind: "ServiceAccount", name: `${NAME}-store`, namespace: NAMESPACE }],
    }),
    peprDeployment("watcher", env, pullSecret),
    peprDeployment("admission", env, pullSecret),
    at("Service", NAME, {
      metadata: {
        name: NAME,
        namespace: NAMESPACE,
        labels: { "pepr.dev/controller": "admission" },
      },
      spec: { selector: { app: NAME, "pepr.dev/controller": "admission" } },
    }),
    at("Service", `${NAME}-watcher`, {
      metadata: {
        name: `${NAME}-watcher`,
        namespace: NAMESPACE,
        labels: { "pepr.dev/controller": "watcher" },
      },
      spec: { selector: { app: `${NAME}-watcher`, "pepr.dev/controller": "watcher" } },
    }),
    at("ValidatingWebhookConfiguration", NAME, {
      metadata: { name: NAME },
      webhooks: [
        {
          name: `${NAME}.pepr.dev`,
          clientConfig: { service: { name: NAME, namespace: NAMESPACE } },
        },
      ],
    }),
  ];
  return objects.map(o => customizeManifest(o, {}));
}

export const CRD_YAML = [
  "# generated",
  "apiVersion: apiextensions.k8s.io/v1",
  "kind: CustomResourceDefinition",
  "metadata:",
  "  name: databases.pgkeeper.dev",
  "---",
  "apiVersion: apiextensions.k8s.io/v1",
  "kind: CustomResourceDefinition",
  "metadata:",
  "  name: backups.pgkeeper.dev",
  "",
].join("\n");

/** deploy/monitoring's objects, cut to what the chart reads. */
export const MONITORING = {
  metricsService: at("Service", "pgkeeper-metrics", {
    metadata: {
      name: "pgkeeper-metrics",
      namespace: NAMESPACE,
      labels: { "app.kubernetes.io/name": "pgkeeper", "app.kubernetes.io/component": "metrics" },
    },
    spec: { selector: { app: `${NAME}-watcher`, "pepr.dev/controller": "watcher" } },
  }),
  serviceMonitor: {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "ServiceMonitor",
    metadata: {
      name: "pgkeeper",
      namespace: NAMESPACE,
      labels: { "app.kubernetes.io/name": "pgkeeper" },
    },
  },
  dashboardJson: '{\n  "title": "pgkeeper",\n  "legendFormat": "{{pod}}"\n}\n',
};
