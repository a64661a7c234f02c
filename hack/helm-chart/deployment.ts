/**
 * The operator's two Deployments as templates: the module YAML's objects (hardened by
 * deploy/operator/manifests.ts) with the values put in at precise points. Everything else, the
 * seccomp profile, the read-only root, the rollout strategy, stays as manifests.ts made it.
 */
import type { V1Container, V1Deployment, V1EnvVar, V1PodSpec } from "@kubernetes/client-node";
import type { Role } from "./module";
import { hole, type Placeholders, yamlBlock } from "./placeholders";

export const IMAGE_EXPRESSION =
  '{{ printf "%s:%s" .Values.image.repository .Values.image.tag | quote }}';

/** `pod.imagePullSecrets`, written only when the list has names. */
export const POD_PULL_SECRETS = [
  "{{- with .Values.imagePullSecrets }}",
  "imagePullSecrets:",
  "  {{- range . }}",
  "  - name: {{ . | quote }}",
  "  {{- end }}",
  "{{- end }}",
];

/**
 * PGKEEPER_IMAGE_PULL_SECRETS, as the operator reads it (comma-separated), only when the list
 * has names: unset and empty mean the same to the operator, and no variable reads better.
 */
export const POSTGRES_PULL_SECRETS_ENV = [
  "{{- with .Values.postgres.imagePullSecrets }}",
  "- name: PGKEEPER_IMAGE_PULL_SECRETS",
  '  value: {{ join "," . | quote }}',
  "{{- end }}",
];

/** PGKEEPER_ALLOWED_IMAGES (comma-separated), only when the list has entries: empty allows any. */
export const POSTGRES_ALLOWED_IMAGES_ENV = [
  "{{- with .Values.postgres.allowedImages }}",
  "- name: PGKEEPER_ALLOWED_IMAGES",
  '  value: {{ join "," . | quote }}',
  "{{- end }}",
];

/** PGKEEPER_WATCH_NAMESPACES (comma-separated), only for a namespaced install. */
export const WATCH_NAMESPACES_ENV = [
  "{{- with .Values.watchNamespaces }}",
  "- name: PGKEEPER_WATCH_NAMESPACES",
  '  value: {{ join "," . | quote }}',
  "{{- end }}",
];

/** The list with `item` in place of the variable `name`, or after the others. */
export function withEnv(env: readonly V1EnvVar[], name: string, item: V1EnvVar): V1EnvVar[] {
  const at = env.findIndex(e => e.name === name);
  return at < 0 ? [...env, item] : env.map((e, i) => (i === at ? item : e));
}

/**
 * The operator's environment with the values in, each where the module YAML has its variable
 * (`pepr build` copies PGKEEPER_IMAGE_REPOSITORY, PGKEEPER_IMAGE_PULL_SECRETS and
 * PGKEEPER_ALLOWED_IMAGES from its own
 * environment, deploy/operator/manifests.ts), else after the others: never a variable twice.
 */
function templatedEnv(env: readonly V1EnvVar[], p: Placeholders): V1EnvVar[] {
  const entries: [string, V1EnvVar][] = [
    ["LOG_LEVEL", { name: "LOG_LEVEL", value: p.value("{{ .Values.logLevel | quote }}") }],
    [
      "PGKEEPER_IMAGE_REPOSITORY",
      {
        name: "PGKEEPER_IMAGE_REPOSITORY",
        value: p.value("{{ .Values.postgres.imageRepository | quote }}"),
      },
    ],
    ["PGKEEPER_IMAGE_PULL_SECRETS", hole<V1EnvVar>(p.lines(POSTGRES_PULL_SECRETS_ENV))],
    ["PGKEEPER_ALLOWED_IMAGES", hole<V1EnvVar>(p.lines(POSTGRES_ALLOWED_IMAGES_ENV))],
    ["PGKEEPER_WATCH_NAMESPACES", hole<V1EnvVar>(p.lines(WATCH_NAMESPACES_ENV))],
  ];
  return entries.reduce((list, [name, item]) => withEnv(list, name, item), [...env]);
}

function operatorContainer(c: V1Container, role: Role, p: Placeholders): V1Container {
  return {
    ...c,
    image: p.value(IMAGE_EXPRESSION),
    resources: hole(p.value(yamlBlock(`.Values.${role}.resources`))),
    env: templatedEnv(c.env ?? [], p),
  };
}

/**
 * The Deployment of `role` with the values in: replicas, the operator's image (in the init
 * container too, which runs the same image), pull Secrets, resources and the environment.
 */
export function templatedDeployment(
  deployment: V1Deployment,
  role: Role,
  p: Placeholders,
): V1Deployment {
  const spec = deployment.spec!;
  const pod = spec.template.spec!;
  const [main, ...sidecars] = pod.containers;
  const initContainers = pod.initContainers?.map(c =>
    c.image === main.image ? { ...c, image: p.value(IMAGE_EXPRESSION) } : c,
  );
  // `pepr build --with-pull-secret` writes one: it is the value's default (values.ts).
  const { imagePullSecrets: _fromBuild, ...rest } = pod;
  const templatedPod: V1PodSpec = {
    ...rest,
    [p.lines(POD_PULL_SECRETS)]: "",
    ...(initContainers ? { initContainers } : {}),
    containers: [operatorContainer(main, role, p), ...sidecars],
  };
  return {
    ...deployment,
    spec: {
      ...spec,
      replicas: hole(p.value(`{{ .Values.${role}.replicas }}`)),
      template: { ...spec.template, spec: templatedPod },
    },
  };
}
