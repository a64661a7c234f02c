/** Tolerations, affinity and node selectors: Kubernetes' own rules between their fields. */
import type { Json, JsonObject } from "../bases";
import type { Rng } from "../prng";
import { set } from "./paths";
import { repeat } from "./values";
import type { Mutation } from "./types";

const KEYS = [
  "dedicated",
  "",
  "example.com/gpu",
  "Example.com/gpu",
  "a/b/c",
  "bad key",
  "-leading",
  repeat(63),
  repeat(64),
  `${repeat(254, "a.")}/x`,
  "node.kubernetes.io/unreachable",
];
const LABEL_VALUES = ["postgres", "", "has space", repeat(63), repeat(64), "-x", "x_y.z", "ü"];

function toleration(rng: Rng): JsonObject {
  const t: JsonObject = {};
  if (rng.chance(0.85)) t.key = rng.pick(KEYS);
  if (rng.chance(0.8)) t.operator = rng.pick(["Equal", "Exists", "", "equal", "In", "Gt"]);
  if (rng.chance(0.6)) t.value = rng.pick(LABEL_VALUES);
  if (rng.chance(0.7))
    t.effect = rng.pick(["NoSchedule", "PreferNoSchedule", "NoExecute", "", "noschedule", "Evict"]);
  if (rng.chance(0.3)) t.tolerationSeconds = rng.pick<Json>([30, 0, -5, 1.5, "30", 2 ** 63]);
  return t;
}

function requirement(rng: Rng): JsonObject {
  const op = rng.pick(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "in", "Equals", ""]);
  const r: JsonObject = { key: rng.pick(KEYS), operator: op };
  if (rng.chance(0.7))
    r.values = rng.pick<Json>([[], ["a"], ["a", "b"], ["5"], ["x5"], ["5", "6"], [5], [""]]);
  if (rng.chance(0.05)) delete r.key;
  return r;
}

function labelSelector(rng: Rng): JsonObject {
  const s: JsonObject = {};
  if (rng.chance(0.5)) s.matchLabels = { [rng.pick(KEYS)]: rng.pick(LABEL_VALUES) };
  if (rng.chance(0.6)) {
    const r = requirement(rng);
    if (rng.chance(0.3) && Array.isArray(r.values))
      r.values = rng.pick<Json>([["bad value"], [repeat(64)]]);
    s.matchExpressions = [r];
  }
  return s;
}

function podTerm(rng: Rng): JsonObject {
  const t: JsonObject = {};
  if (rng.chance(0.8)) t.labelSelector = labelSelector(rng);
  if (rng.chance(0.9))
    t.topologyKey = rng.pick([
      "kubernetes.io/hostname",
      "",
      "topology.kubernetes.io/zone",
      "bad key",
    ]);
  if (rng.chance(0.2)) t.namespaces = rng.pick<Json>([["default"], ["Bad_NS"], [""]]);
  return t;
}

const weight = (rng: Rng): Json => rng.pick<Json>([1, 50, 100, 0, 101, -1, 1.5, "10"]);

function affinity(rng: Rng): JsonObject {
  switch (rng.int(0, 4)) {
    case 0:
      return {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: rng.chance(0.15) ? [] : [{ matchExpressions: [requirement(rng)] }],
          },
        },
      };
    case 1:
      return {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: weight(rng), preference: { matchExpressions: [requirement(rng)] } },
          ],
        },
      };
    case 2:
      return { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [podTerm(rng)] } };
    case 3:
      return {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: weight(rng), podAffinityTerm: podTerm(rng) },
          ],
        },
      };
    default:
      return { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } };
  }
}

export const SCHEDULING_MUTATIONS: readonly Mutation[] = [
  {
    name: "toleration",
    weight: 6,
    apply: (rng, doc) => {
      const t = toleration(rng);
      set(doc, ["spec", "scheduling", "tolerations"], [t]);
      return `tolerations = [${JSON.stringify(t).slice(0, 120)}]`;
    },
  },
  {
    name: "affinity",
    weight: 6,
    apply: (rng, doc) => {
      const a = affinity(rng);
      set(doc, ["spec", "scheduling", "affinity"], a);
      return `affinity = ${JSON.stringify(a).slice(0, 160)}`;
    },
  },
  {
    name: "node-selector",
    weight: 3,
    apply: (rng, doc) => {
      const key = rng.pick(KEYS);
      const value: Json = rng.chance(0.1) ? rng.pick<Json>([true, 5]) : rng.pick(LABEL_VALUES);
      set(doc, ["spec", "scheduling", "nodeSelector"], { [key]: value });
      return `nodeSelector = {${JSON.stringify(key).slice(0, 40)}: ${JSON.stringify(value).slice(0, 40)}}`;
    },
  },
];
