import type { V1EnvVar } from "@kubernetes/client-node";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { WATCHER_MEMORY, WATCHER_REPLICAS } from "../../deploy/operator/manifests";
import { moduleYamlObjects } from "./fixture";
import { moduleObjects } from "./module";
import {
  type ChartValues,
  commented,
  defaultValues,
  VALUE_DOCS,
  valuesSchema,
  valuesYaml,
} from "./values";

const defaults = (env: V1EnvVar[] = []): ChartValues =>
  defaultValues(moduleObjects(moduleYamlObjects(env)));

const at = (values: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, key) => (v as Record<string, unknown>)[key], values);

/** Dotted paths of the leaves; resources maps count as one value. */
const leaves = (value: unknown, prefix = ""): string[] =>
  value && typeof value === "object" && !Array.isArray(value) && !prefix.endsWith("resources")
    ? Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k))
    : [prefix];

describe("defaultValues", () => {
  it.each<[string, unknown]>([
    ["watcher.replicas", WATCHER_REPLICAS],
    ["watcher.resources.requests.memory", WATCHER_MEMORY.request],
    ["watcher.resources.limits.memory", WATCHER_MEMORY.limit],
    ["watcher.resources.limits.cpu", undefined],
    ["watcher.resources.requests.cpu", "200m"],
    ["admission.resources.limits.cpu", undefined],
    ["admission.replicas", 2],
    ["admission.resources.limits.memory", "512Mi"],
    ["image.repository", "registry.example.com:5000/pgkeeper/controller"],
    ["image.tag", "v9"],
    ["imagePullSecrets", []],
    ["logLevel", "info"],
    ["postgres.imageRepository", "localhost/pgkeeper"],
    ["postgres.imagePullSecrets", []],
    ["postgres.allowedImages", []],
    ["metrics.serviceMonitor.enabled", false],
    ["metrics.dashboard.enabled", false],
  ])("%s is %j: what the module YAML holds (manifests.ts, Pepr) or the chart's own", (path, v) => {
    expect(at(defaults(), path)).toEqual(v);
  });

  it("takes the operator's pull Secret of pepr build --with-pull-secret", () => {
    expect(defaultValues(moduleObjects(moduleYamlObjects([], "regcred"))).imagePullSecrets).toEqual(
      ["regcred"],
    );
  });

  it("takes the PostgreSQL settings pepr build copied into the module YAML", () => {
    const values = defaults([
      { name: "PGKEEPER_IMAGE_REPOSITORY", value: "registry.example.com/pg" },
      { name: "PGKEEPER_IMAGE_PULL_SECRETS", value: "a, b,," },
      { name: "PGKEEPER_ALLOWED_IMAGES", value: "registry.example.com/pg/,other/repo" },
    ]);
    expect(values.postgres).toEqual({
      imageRepository: "registry.example.com/pg",
      imagePullSecrets: ["a", "b"],
      allowedImages: ["registry.example.com/pg/", "other/repo"],
    });
  });
});

describe("values.yaml and values.schema.json", () => {
  it("documents every value, and nothing else", () => {
    expect(Object.keys(VALUE_DOCS).sort()).toEqual(leaves(defaults()).sort());
  });

  it("writes the defaults, each documented value after its comment", () => {
    const text = valuesYaml(defaults());
    expect(load(text)).toEqual(defaults());
    expect(text).toContain(`  # ${VALUE_DOCS["watcher.replicas"]}\n  replicas: 2\n`);
    expect(text).toContain(
      `    # ${VALUE_DOCS["metrics.dashboard.enabled"]}\n    enabled: false\n`,
    );
  });

  it.each([
    ["a top-level key", "a: 1\nb: 2", { b: "B" }, ["a: 1", "# B", "b: 2"]],
    [
      "a nested key",
      "x:\n  y: 1\nz:\n  y: 2",
      { "z.y": "Z" },
      ["x:", "  y: 1", "z:", "  # Z", "  y: 2"],
    ],
    ["not list items", "l:\n  - y: 1", { y: "no", "l.y": "no" }, ["l:", "  - y: 1"]],
  ])("comments %s", (_title, yaml, docs, lines) => {
    expect(commented(yaml, docs)).toEqual(lines);
  });

  /** The schema's properties, as dotted paths, down to resources. */
  const schemaLeaves = (schema: Record<string, unknown>, prefix = ""): string[] => {
    const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
    if (!properties || prefix.endsWith("resources")) return [prefix];
    return Object.entries(properties).flatMap(([k, v]) =>
      schemaLeaves(v, prefix ? `${prefix}.${k}` : k),
    );
  };

  it("types every value and refuses keys it does not know, at every level", () => {
    const schema = valuesSchema();
    expect(schemaLeaves(schema).sort()).toEqual(leaves(defaults()).sort());
    const objects = JSON.stringify(schema).match(/"type":"object"/g) ?? [];
    const closed = JSON.stringify(schema).match(/"additionalProperties":false/g) ?? [];
    // Open only where Kubernetes decides the keys: the requests and limits maps (2 per role).
    expect(objects.length - closed.length).toBe(4);
  });
});

describe("docs/install.md", () => {
  it("lists every value of the chart in its values table", () => {
    const doc = readFileSync(join(__dirname, "..", "..", "docs", "install.md"), "utf8");
    const missing = Object.keys(VALUE_DOCS).filter(path => !doc.includes(`| \`${path}\``));
    expect(missing).toEqual([]);
  });
});
