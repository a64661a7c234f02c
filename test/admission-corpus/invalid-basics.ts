/** Names, types, versions, images, instances, unknown fields. */
import { BASE, each, InvalidCase, spec } from "./types";

const long = (n: number): string => "a".repeat(n);

const names: InvalidCase[] = [
  { id: "name-51-chars", name: long(51), spec: BASE, field: "metadata.name" },
  { id: "name-63-chars", name: long(63), spec: BASE, field: "metadata.name" },
  { id: "name-64-chars", name: long(64), spec: BASE, field: "metadata.name" },
  { id: "name-200-chars", name: long(200), spec: BASE, field: "metadata.name" },
  { id: "name-starts-digit", name: "1orders", spec: BASE, field: "metadata.name" },
  { id: "name-ends-dash", name: "orders-", spec: BASE, field: "metadata.name" },
  { id: "name-dot", name: "orders.prod", spec: BASE, field: "metadata.name" },
  { id: "name-dot-long", name: "a." + long(60), spec: BASE, field: "metadata.name" },
];

const types: InvalidCase[] = [
  { id: "spec-missing", spec: undefined, field: "spec" },
  { id: "spec-list", spec: [BASE], field: "spec" },
  { id: "spec-string", spec: "version: 15", field: "spec" },
  { id: "version-missing", spec: { storage: { size: "1Gi" } }, field: "spec.version" },
  { id: "storage-missing", spec: { version: "15" }, field: "spec.storage" },
  { id: "storage-string", spec: spec({ storage: "1Gi" }), field: "spec.storage" },
  { id: "storage-list", spec: spec({ storage: [{ size: "1Gi" }] }), field: "spec.storage" },
  { id: "resources-string", spec: spec({ resources: "small" }), field: "spec.resources" },
  { id: "scheduling-string", spec: spec({ scheduling: "anywhere" }), field: "spec.scheduling" },
  { id: "postgresql-list", spec: spec({ postgresql: [] }), field: "spec.postgresql" },
  {
    id: "parameters-list",
    spec: spec({ postgresql: { parameters: ["work_mem=8MB"] } }),
    field: "spec.postgresql.parameters",
  },
  { id: "failover-bool", spec: spec({ failover: true }), field: "spec.failover" },
  { id: "backup-string", spec: spec({ backup: "daily" }), field: "spec.backup" },
  { id: "bootstrap-string", spec: spec({ bootstrap: "empty" }), field: "spec.bootstrap" },
  { id: "readonly-string", spec: spec({ readOnly: "yes" }), field: "spec.readOnly" },
  { id: "paused-string", spec: spec({ paused: "yes" }), field: "spec.paused" },
  { id: "paused-number", spec: spec({ paused: 1 }), field: "spec.paused" },
  // Strict field validation: an unknown field is refused by name, never pruned and ignored.
  { id: "unknown-spec-field", spec: spec({ replicas: 3 }), field: "spec.replicas" },
  {
    id: "unknown-storage-field",
    spec: spec({ storage: { size: "1Gi", sizee: "2Gi" } }),
    field: "spec.storage.sizee",
  },
  {
    id: "unknown-backup-field",
    spec: spec({ backup: { objectstore: {} } }),
    field: "spec.backup.objectstore",
  },
  {
    id: "unknown-postgresql-field",
    spec: spec({ postgresql: { parameter: { work_mem: "8MB" } } }),
    field: "spec.postgresql.parameter",
  },
  {
    id: "unknown-failover-field",
    spec: spec({ failover: { delay: 30 } }),
    field: "spec.failover.delay",
  },
];

const versions: InvalidCase[] = each(
  ["13", "19", "15.3", "", "latest", "v15", "9.6", "16beta1"],
  v => ({ id: `version-${v || "empty"}`, spec: spec({ version: v }), field: "spec.version" }),
);
versions.push(
  { id: "version-number-list", spec: spec({ version: ["15"] }), field: "spec.version" },
  { id: "version-object", spec: spec({ version: { major: 15 } }), field: "spec.version" },
);

const DIGEST = "sha256:" + "b".repeat(64);
const images: InvalidCase[] = each(
  [
    ["empty", ""],
    ["blank", " "],
    ["space", "postgres: 15"],
    ["uppercase-repo", "Postgres:15"],
    ["other-major", "postgres:16"],
    ["other-major-variant", "postgres:14.5-alpine"],
    ["other-major-registry", "registry.example.com:5000/db/postgres:17.2-bookworm"],
    ["other-major-digest", `postgres:18@${DIGEST}`],
    ["short-digest", "postgres:15@sha256:abc"],
    ["double-colon", "postgres::15"],
    ["too-long", "registry.example.com/" + "a".repeat(500) + ":15"],
    ["bad-registry", "registry..example.com/postgres:15"],
    ["tag-starts-dash", "postgres:-15"],
    ["two-digests", `postgres@${DIGEST}@${DIGEST}`],
    ["scheme", "https://registry.example.com/postgres:15"],
  ] as const,
  ([what, image]) => ({ id: `image-${what}`, spec: spec({ image }), field: "spec.image" }),
);

const instances: InvalidCase[] = each([0, -1, 10, 100, 1000000, 1.5, "3", true], (n, i) => ({
  id: `instances-${i}-${String(n)}`,
  spec: spec({ instances: n }),
  field: "spec.instances",
}));

const Q = "spec.monitoring.customQueries";
const monitoring: InvalidCase[] = each(
  [
    ["name-upper", [{ name: "App-Queries", key: "q.yaml" }], `${Q}[0].name`],
    ["key-slash", [{ name: "app-queries", key: "a/b.yaml" }], `${Q}[0].key`],
    ["key-missing", [{ name: "app-queries" }], `${Q}[0].key`],
    [
      "twice",
      [
        { name: "app-queries", key: "q.yaml" },
        { name: "app-queries", key: "q.yaml" },
      ],
      `${Q}[1]`,
    ],
    ["enabled-string", undefined, "spec.monitoring.enabled"],
  ] as const,
  ([what, customQueries, field]) => ({
    id: `monitoring-${what}`,
    spec: spec({
      monitoring: customQueries === undefined ? { enabled: "yes" } : { customQueries },
    }),
    field,
  }),
);

export const BASICS: InvalidCase[] = [
  ...names,
  ...types,
  ...versions,
  ...images,
  ...instances,
  ...monitoring,
];
