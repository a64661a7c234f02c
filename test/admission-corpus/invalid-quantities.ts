/** Storage, resources and read-only lag: formats, minimums and absurd but well-formed values. */
import { each, InvalidCase, spec } from "./types";

const sizes: InvalidCase[] = each(
  [
    "",
    "0",
    "0Gi",
    "1Mi",
    "255Mi",
    "-1Gi",
    "1e3Gi",
    "1e3",
    "500m",
    "10GB",
    "10 Gi",
    "10gi",
    "abc",
    "1.5.5Gi",
    " 1Gi",
    "900Ei",
    "100Pi",
    "1Pi",
    "65Ti",
    "1000000Ti",
    "99999999999999999999999",
  ],
  (size, i) => ({
    id: `storage-size-${i}-${size.trim() || "empty"}`,
    spec: spec({ storage: { size } }),
    field: "spec.storage.size",
  }),
);
sizes.push(
  { id: "storage-size-missing", spec: spec({ storage: {} }), field: "spec.storage.size" },
  {
    id: "storage-size-list",
    spec: spec({ storage: { size: ["1Gi"] } }),
    field: "spec.storage.size",
  },
  { id: "storage-size-bool", spec: spec({ storage: { size: true } }), field: "spec.storage.size" },
);

const classes: InvalidCase[] = each(
  ["Fast_SSD", "a..b", "-fast", "fast-", "fast ssd", "", "UPPER", "x".repeat(254), "fast/ssd"],
  (storageClassName, i) => ({
    id: `storage-class-${i}`,
    spec: spec({ storage: { size: "1Gi", storageClassName } }),
    field: "spec.storage.storageClassName",
  }),
);

type Res = "requests.cpu" | "requests.memory" | "limits.cpu" | "limits.memory";
const resource = (where: Res, value: unknown): object => {
  const [kind, name] = where.split(".");
  return spec({ resources: { [kind]: { [name]: value } } });
};

const cpu: [Res, unknown][] = [
  ["requests.cpu", "2Ki"],
  ["requests.cpu", "1Mi"],
  ["limits.cpu", "2Gi"],
  ["requests.cpu", "1e60"],
  ["limits.cpu", "1e60"],
  ["requests.cpu", "0"],
  ["requests.cpu", "-1"],
  ["requests.cpu", "1m"],
  ["requests.cpu", "abc"],
  ["requests.cpu", "2000"],
  ["limits.cpu", "100k"],
  ["requests.cpu", "1n"],
  ["limits.cpu", true],
  ["limits.cpu", ["1"]],
];
const memory: [Res, unknown][] = [
  ["requests.memory", "1e60"],
  ["limits.memory", "1e60"],
  ["requests.memory", "1Mi"],
  ["requests.memory", "0"],
  ["limits.memory", "1Ei"],
  ["limits.memory", "64Ti"],
  ["requests.memory", "100m"],
  ["requests.memory", "1.5.Gi"],
  ["requests.memory", "1Gb"],
  ["requests.memory", "-1Gi"],
  ["limits.memory", "1e3Ti"],
];
const resources: InvalidCase[] = [...cpu, ...memory].map(([where, value], i) => ({
  id: `resources-${where}-${i}`,
  spec: resource(where, value),
  field: `spec.resources.${where}`,
}));
resources.push(
  {
    id: "resources-cpu-request-over-limit",
    spec: spec({ resources: { requests: { cpu: "2" }, limits: { cpu: "1" } } }),
    field: "spec.resources.requests.cpu",
  },
  {
    id: "resources-memory-request-over-limit",
    spec: spec({ resources: { requests: { memory: "4Gi" }, limits: { memory: "2Gi" } } }),
    field: "spec.resources.requests.memory",
  },
  {
    id: "resources-unknown-resource",
    spec: spec({ resources: { requests: { storage: "1Gi" } } }),
    field: "spec.resources.requests.storage",
  },
);

const lags: InvalidCase[] = each(
  ["abc", "-1Mi", "1e3", "500m", "64MB", "2Ei", "10Pi", ""],
  (maxLag, i) => ({
    id: `readonly-maxlag-${i}-${maxLag || "empty"}`,
    spec: spec({ instances: 2, readOnly: { maxLag } }),
    field: "spec.readOnly.maxLag",
  }),
);

export const QUANTITIES: InvalidCase[] = [...sizes, ...classes, ...resources, ...lags];
