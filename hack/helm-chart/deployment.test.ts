import type { V1Deployment, V1EnvVar } from "@kubernetes/client-node";
import { IMAGE_EXPRESSION, templatedDeployment, withEnv } from "./deployment";
import { moduleYamlObjects } from "./fixture";
import { moduleObjects, type Role } from "./module";
import { renderTemplate } from "./render";

const template = (role: Role, env: V1EnvVar[] = [], pullSecret?: string): string[] => {
  const d: V1Deployment = moduleObjects(moduleYamlObjects(env, pullSecret)).deployments[role];
  return renderTemplate(d, (o, p) => templatedDeployment(o, role, p)).split("\n");
};

/** The line after `key` (a unique line) that starts with `text`, searching down from it. */
const lineUnder = (lines: string[], key: string, text: string): string | undefined =>
  lines.slice(lines.indexOf(key)).find(l => l.trimStart().startsWith(text));

describe("templatedDeployment", () => {
  it.each<[Role, string, string, string]>([
    ["watcher", "spec:", "replicas:", "  replicas: {{ .Values.watcher.replicas }}"],
    ["admission", "spec:", "replicas:", "  replicas: {{ .Values.admission.replicas }}"],
    ["watcher", "      containers:", "image:", `          image: ${IMAGE_EXPRESSION}`],
    ["watcher", "      initContainers:", "image:", `          image: ${IMAGE_EXPRESSION}`],
    ["admission", "      initContainers:", "image:", `          image: ${IMAGE_EXPRESSION}`],
    [
      "watcher",
      "      containers:",
      "resources:",
      "          resources: {{- toYaml .Values.watcher.resources | nindent 12 }}",
    ],
    [
      "admission",
      "      containers:",
      "resources:",
      "          resources: {{- toYaml .Values.admission.resources | nindent 12 }}",
    ],
    [
      "admission",
      "            - name: LOG_LEVEL",
      "value:",
      "              value: {{ .Values.logLevel | quote }}",
    ],
    [
      "watcher",
      "            - name: PGKEEPER_IMAGE_REPOSITORY",
      "value:",
      "              value: {{ .Values.postgres.imageRepository | quote }}",
    ],
    [
      "admission",
      "            - name: PGKEEPER_IMAGE_REPOSITORY",
      "value:",
      "              value: {{ .Values.postgres.imageRepository | quote }}",
    ],
    [
      "watcher",
      "          env:",
      "{{- with .Values.postgres",
      "            {{- with .Values.postgres.imagePullSecrets }}",
    ],
    [
      "admission",
      "          env:",
      "- name: PGKEEPER_IMAGE_PULL",
      "            - name: PGKEEPER_IMAGE_PULL_SECRETS",
    ],
    [
      "watcher",
      "          env:",
      "value: {{ join",
      '              value: {{ join "," . | quote }}',
    ],
    [
      "watcher",
      "    spec:",
      "{{- with .Values.imagePullSecrets",
      "      {{- with .Values.imagePullSecrets }}",
    ],
    ["admission", "    spec:", "imagePullSecrets:", "      imagePullSecrets:"],
    ["admission", "    spec:", "- name: {{ . | quote }}", "        - name: {{ . | quote }}"],
    ["watcher", "metadata:", "{{- include", '    {{- include "pgkeeper.labels" . | nindent 4 }}'],
  ])("%s: under %j, %s lands as %j", (role, key, text, line) => {
    expect(lineUnder(template(role), key, text)).toBe(line);
  });

  it.each<Role>(["watcher", "admission"])(
    "%s: keeps what manifests.ts set (rollout, seccomp, read-only root) and no literal image",
    role => {
      const text = template(role).join("\n");
      expect(text).toContain("type: RuntimeDefault");
      expect(text).toContain("readOnlyRootFilesystem: true");
      expect(text).not.toContain("registry.example.com:5000");
      expect(text.includes("type: RollingUpdate")).toBe(role === "watcher");
    },
  );

  it("replaces the variables pepr build copied from its environment instead of adding them twice", () => {
    const lines = template("watcher", [
      { name: "PGKEEPER_IMAGE_REPOSITORY", value: "r" },
      { name: "PGKEEPER_IMAGE_PULL_SECRETS", value: "a" },
    ]);
    for (const name of ["LOG_LEVEL", "PGKEEPER_IMAGE_REPOSITORY", "PGKEEPER_IMAGE_PULL_SECRETS"]) {
      expect(lines.filter(l => l.trim() === `- name: ${name}`)).toHaveLength(1);
    }
    expect(lines.filter(l => l.trim() === "value: r" || l.trim() === "value: a")).toEqual([]);
  });
});

it.each<Role>(["watcher", "admission"])(
  "%s: leaves the pull Secret of pepr build --with-pull-secret to the value (one imagePullSecrets key)",
  role => {
    const lines = template(role, [], "regcred");
    expect(lines.filter(l => l.trim() === "imagePullSecrets:")).toHaveLength(1);
    expect(lines.join("\n")).not.toContain("regcred");
  },
);

describe("withEnv", () => {
  const a: V1EnvVar = { name: "A", value: "1" };
  const b: V1EnvVar = { name: "B", value: "2" };
  it.each<[string, V1EnvVar[], string, V1EnvVar, V1EnvVar[]]>([
    ["appends a new variable", [a], "B", b, [a, b]],
    [
      "replaces one in place",
      [a, b],
      "A",
      { name: "A", value: "x" },
      [{ name: "A", value: "x" }, b],
    ],
    ["starts a list", [], "A", a, [a]],
  ])("%s", (_title, env, name, item, expected) => {
    expect(withEnv(env, name, item)).toEqual(expected);
  });
});
