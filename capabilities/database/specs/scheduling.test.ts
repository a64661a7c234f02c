import type { V1Affinity } from "@kubernetes/client-node";
import { DB_NAME, input } from "../../../test/unit/builder-fixtures";
import { affinity, podScheduling, spreadTerm } from "./scheduling";
import { buildStatefulSet } from "./statefulset";
import type { DatabaseSpec } from "../api/database-schema";

const term = spreadTerm("orders");
const nodeAffinity = {
  requiredDuringSchedulingIgnoredDuringExecution: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] }],
  },
};
const userPreferred = {
  weight: 10,
  podAffinityTerm: { labelSelector: { matchLabels: { app: "x" } }, topologyKey: "zone" },
};
const userRequired = { labelSelector: { matchLabels: { app: "y" } }, topologyKey: "zone" };

const scheduling = (s: DatabaseSpec["scheduling"]) => input({ scheduling: s }).spec.scheduling;

describe("spreadTerm", () => {
  it("selects this Database's instances on the same node", () => {
    expect(term).toEqual({
      labelSelector: {
        matchLabels: {
          "pgkeeper.dev/database": "orders",
          "app.kubernetes.io/component": "instance",
        },
      },
      topologyKey: "kubernetes.io/hostname",
    });
  });
});

describe("affinity", () => {
  it.each<[string, DatabaseSpec["scheduling"], V1Affinity | undefined]>([
    [
      "preferred by default",
      undefined,
      {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }],
        },
      },
    ],
    [
      "required",
      { antiAffinity: "required" },
      { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } },
    ],
    ["none", { antiAffinity: "none" }, undefined],
    [
      "none with user affinity",
      { antiAffinity: "none", affinity: { nodeAffinity } },
      { nodeAffinity },
    ],
    [
      "preferred, user node affinity kept",
      { antiAffinity: "preferred", affinity: { nodeAffinity } },
      {
        nodeAffinity,
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }],
        },
      },
    ],
    [
      "preferred, appended to the user's preferred terms",
      {
        antiAffinity: "preferred",
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [userPreferred],
            requiredDuringSchedulingIgnoredDuringExecution: [userRequired],
          },
        },
      },
      {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            userPreferred,
            { weight: 100, podAffinityTerm: term },
          ],
          requiredDuringSchedulingIgnoredDuringExecution: [userRequired],
        },
      },
    ],
    [
      "required, appended to the user's required terms",
      {
        antiAffinity: "required",
        affinity: {
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [userRequired] },
        },
      },
      { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [userRequired, term] } },
    ],
  ])("%s", (_, spec, expected) => {
    expect(affinity("orders", scheduling(spec))).toEqual(expected);
  });

  it("does not modify the spec it reads", () => {
    const s = scheduling({
      affinity: {
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [userPreferred] },
      },
    });
    const before = JSON.stringify(s);
    affinity("orders", s);
    expect(JSON.stringify(s)).toBe(before);
  });
});

describe("podScheduling", () => {
  const tolerations = [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" }];

  it.each<[string, DatabaseSpec["scheduling"], boolean, string[]]>([
    ["defaults", undefined, true, ["affinity"]],
    ["no anti-affinity", { antiAffinity: "none" }, true, []],
    [
      "empty nodeSelector and tolerations",
      { nodeSelector: {}, tolerations: [], antiAffinity: "none" },
      true,
      [],
    ],
    [
      "everything",
      { nodeSelector: { disk: "ssd" }, tolerations, affinity: { nodeAffinity } },
      true,
      ["affinity", "nodeSelector", "tolerations"],
    ],
    [
      "without anti-affinity (backup pods)",
      { nodeSelector: { disk: "ssd" } },
      false,
      ["nodeSelector"],
    ],
    ["user affinity only (backup pods)", { affinity: { nodeAffinity } }, false, ["affinity"]],
  ])("%s gives fields %p", (_, spec, withAnti, fields) => {
    expect(Object.keys(podScheduling("orders", scheduling(spec), withAnti)).sort()).toEqual(fields);
  });

  it("passes nodeSelector and tolerations through", () => {
    const s = podScheduling("orders", scheduling({ nodeSelector: { disk: "ssd" }, tolerations }));
    expect(s.nodeSelector).toEqual({ disk: "ssd" });
    expect(s.tolerations).toEqual(tolerations);
  });
});

describe("topology spread", () => {
  const constraints = (topologySpread: object[] | undefined) =>
    buildStatefulSet(input({ scheduling: { topologySpread } as never }), "h").spec!.template.spec!
      .topologySpreadConstraints;

  it("is absent unless asked for", () => {
    expect(constraints(undefined)).toBeUndefined();
    expect(constraints([])).toBeUndefined();
  });

  it.each<[string, object, object]>([
    [
      "defaults: a skew of 1, ScheduleAnyway",
      { topologyKey: "topology.kubernetes.io/zone" },
      { maxSkew: 1, whenUnsatisfiable: "ScheduleAnyway" },
    ],
    [
      "as given, minDomains with DoNotSchedule",
      {
        topologyKey: "topology.kubernetes.io/zone",
        maxSkew: 2,
        whenUnsatisfiable: "DoNotSchedule",
        minDomains: 3,
      },
      { maxSkew: 2, whenUnsatisfiable: "DoNotSchedule", minDomains: 3 },
    ],
  ])("selects this Database's instances, %s", (_, given, expected) => {
    expect(constraints([given])).toEqual([
      {
        topologyKey: "topology.kubernetes.io/zone",
        labelSelector: {
          matchLabels: {
            "app.kubernetes.io/component": "instance",
            "pgkeeper.dev/database": DB_NAME,
          },
        },
        ...expected,
      },
    ]);
  });

  it("keeps the anti-affinity beside it", () => {
    const spec = buildStatefulSet(
      input({ scheduling: { topologySpread: [{ topologyKey: "zone" }] } as never }),
      "h",
    ).spec!.template.spec!;
    expect(spec.affinity?.podAntiAffinity).toBeDefined();
    expect(spec.topologySpreadConstraints).toHaveLength(1);
  });
});
