/** nodeSelector, tolerations, affinity and antiAffinity (core/v1 shapes and their rules). */
import { each, InvalidCase, scheduling } from "./types";

const F = "spec.scheduling";

const nodeSelectors: InvalidCase[] = [
  {
    id: "node-selector-key-space",
    spec: scheduling({ nodeSelector: { "disk type": "ssd" } }),
    field: `${F}.nodeSelector`,
  },
  {
    id: "node-selector-key-slashes",
    spec: scheduling({ nodeSelector: { "a/b/c": "x" } }),
    field: `${F}.nodeSelector`,
  },
  {
    id: "node-selector-prefix-upper",
    spec: scheduling({ nodeSelector: { "Example.com/x": "y" } }),
    field: `${F}.nodeSelector`,
  },
  {
    id: "node-selector-value-long",
    spec: scheduling({ nodeSelector: { disk: "s".repeat(64) } }),
    field: `${F}.nodeSelector`,
  },
  {
    id: "node-selector-value-space",
    spec: scheduling({ nodeSelector: { disk: "fast ssd" } }),
    field: `${F}.nodeSelector`,
  },
  {
    id: "node-selector-value-number",
    spec: scheduling({ nodeSelector: { disk: 1 } }),
    field: `${F}.nodeSelector`,
  },
  {
    id: "node-selector-too-many",
    spec: scheduling({
      nodeSelector: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, "v"])),
    }),
    field: `${F}.nodeSelector`,
  },
  {
    id: "node-selector-list",
    spec: scheduling({ nodeSelector: ["disk=ssd"] }),
    field: `${F}.nodeSelector`,
  },
];

const T = `${F}.tolerations`;
const tolerations: InvalidCase[] = [
  ...each(
    [
      ["operator-in", { key: "db", operator: "In", value: "x" }, `${T}[0].operator`],
      ["effect-norun", { key: "db", operator: "Exists", effect: "NoRun" }, `${T}[0].effect`],
      ["exists-with-value", { key: "db", operator: "Exists", value: "x" }, `${T}[0].value`],
      [
        "seconds-string",
        { key: "db", operator: "Exists", effect: "NoExecute", tolerationSeconds: "300" },
        `${T}[0].tolerationSeconds`,
      ],
      [
        "seconds-float",
        { key: "db", operator: "Exists", effect: "NoExecute", tolerationSeconds: 1.5 },
        `${T}[0].tolerationSeconds`,
      ],
      [
        "seconds-without-noexecute",
        { key: "db", operator: "Exists", effect: "NoSchedule", tolerationSeconds: 30 },
        `${T}[0].tolerationSeconds`,
      ],
      ["key-number", { key: 5, operator: "Exists" }, `${T}[0].key`],
      ["equal-empty-key", { operator: "Equal", value: "x" }, `${T}[0].operator`],
      ["key-invalid", { key: "bad key!", operator: "Exists" }, `${T}[0].key`],
      [
        "value-invalid",
        { key: "db", operator: "Equal", value: "not a label value" },
        `${T}[0].value`,
      ],
      [
        "unknown-field",
        { key: "db", operator: "Exists", effects: "NoSchedule" },
        `${T}[0].effects`,
      ],
      ["string-item", "db:NoSchedule", `${T}[0]`],
    ] as const,
    ([what, t, field]) => ({
      id: `toleration-${what}`,
      spec: scheduling({ tolerations: [t] }),
      field,
    }),
  ),
  { id: "tolerations-object", spec: scheduling({ tolerations: { key: "db" } }), field: T },
  {
    id: "tolerations-too-many",
    spec: scheduling({
      tolerations: Array.from({ length: 65 }, (_, i) => ({ key: `k${i}`, operator: "Exists" })),
    }),
    field: T,
  },
  {
    id: "toleration-second-bad",
    spec: scheduling({
      tolerations: [
        { key: "a", operator: "Exists" },
        { key: "b", operator: "Maybe" },
      ],
    }),
    field: `${T}[1].operator`,
  },
];

const A = `${F}.affinity`;
const NA = `${A}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`;
const term = (expr: object): object => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [expr] }],
    },
  },
});
const podTerm = (t: object): object => ({
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] },
});
const affinities: InvalidCase[] = each(
  [
    ["string", "zone-a", A],
    ["node-affinity-list", { nodeAffinity: [] }, `${A}.nodeAffinity`],
    [
      "no-node-selector-terms",
      { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } },
      `${NA}.nodeSelectorTerms`,
    ],
    [
      "operator-like",
      term({ key: "zone", operator: "Like", values: ["a"] }),
      `${NA}.nodeSelectorTerms[0].matchExpressions[0].operator`,
    ],
    [
      "in-without-values",
      term({ key: "zone", operator: "In" }),
      `${NA}.nodeSelectorTerms[0].matchExpressions[0].values`,
    ],
    [
      "exists-with-values",
      term({ key: "zone", operator: "Exists", values: ["a"] }),
      `${NA}.nodeSelectorTerms[0].matchExpressions[0].values`,
    ],
    [
      "gt-not-integer",
      term({ key: "cpu", operator: "Gt", values: ["many"] }),
      `${NA}.nodeSelectorTerms[0].matchExpressions[0].values`,
    ],
    [
      "expression-no-key",
      term({ operator: "Exists" }),
      `${NA}.nodeSelectorTerms[0].matchExpressions[0].key`,
    ],
    [
      "pod-term-no-topology",
      podTerm({ labelSelector: { matchLabels: { app: "x" } } }),
      `${A}.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey`,
    ],
    [
      "pod-term-empty-topology",
      podTerm({ topologyKey: "" }),
      `${A}.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey`,
    ],
    [
      "pod-term-bad-selector-op",
      podTerm({
        topologyKey: "zone",
        labelSelector: { matchExpressions: [{ key: "app", operator: "Like" }] },
      }),
      `${A}.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator`,
    ],
    [
      "weight-zero",
      {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 0, podAffinityTerm: { topologyKey: "zone" } },
          ],
        },
      },
      `${A}.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight`,
    ],
    [
      "weight-101",
      {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 101,
              preference: { matchExpressions: [{ key: "zone", operator: "Exists" }] },
            },
          ],
        },
      },
      `${A}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight`,
    ],
    [
      "no-preference",
      { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10 }] } },
      `${A}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference`,
    ],
    ["unknown-field", { nodeAfinity: {} }, `${A}.nodeAfinity`],
    [
      "match-label-value-invalid",
      podTerm({ topologyKey: "zone", labelSelector: { matchLabels: { app: "a b" } } }),
      `${A}.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels`,
    ],
  ] as const,
  ([what, affinity, field]) => ({ id: `affinity-${what}`, spec: scheduling({ affinity }), field }),
);

const antiAffinity: InvalidCase[] = each(["always", "Required", "", "soft"], (v, i) => ({
  id: `anti-affinity-${i}`,
  spec: scheduling({ antiAffinity: v }),
  field: `${F}.antiAffinity`,
}));

const SPREAD = `${F}.topologySpread`;
const topologySpread: InvalidCase[] = each(
  [
    ["key-space", [{ topologyKey: "my zone" }], `${SPREAD}[0].topologyKey`],
    ["key-missing", [{ maxSkew: 1 }], `${SPREAD}[0].topologyKey`],
    ["skew-zero", [{ topologyKey: "zone", maxSkew: 0 }], `${SPREAD}[0].maxSkew`],
    ["skew-over-instances", [{ topologyKey: "zone", maxSkew: 10 }], `${SPREAD}[0].maxSkew`],
    [
      "when-unknown",
      [{ topologyKey: "zone", whenUnsatisfiable: "Never" }],
      `${SPREAD}[0].whenUnsatisfiable`,
    ],
    ["min-domains-anyway", [{ topologyKey: "zone", minDomains: 2 }], `${SPREAD}[0].minDomains`],
    ["key-twice", [{ topologyKey: "zone" }, { topologyKey: "zone", maxSkew: 2 }], `${SPREAD}[1]`],
  ] as const,
  ([what, topologySpread, field]) => ({
    id: `topology-spread-${what}`,
    spec: scheduling({ topologySpread }),
    field,
  }),
);

export const SCHEDULING: InvalidCase[] = [
  ...nodeSelectors,
  ...tolerations,
  ...affinities,
  ...antiAffinity,
  ...topologySpread,
];
