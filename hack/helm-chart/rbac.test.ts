import type { V1PolicyRule } from "@kubernetes/client-node";
import { scopedRules } from "./rbac";

const rule = (
  group: string,
  resource: string,
  verbs: string[],
  names?: string[],
): V1PolicyRule => ({
  apiGroups: [group],
  resources: [resource],
  verbs,
  ...(names ? { resourceNames: names } : {}),
});

const OWN_POD = rule("", "pods", ["patch"]);

describe("scopedRules: where a namespaced install needs each rule", () => {
  it.each<[string, V1PolicyRule, keyof ReturnType<typeof scopedRules> | "dropped"]>([
    [
      "Databases: where they are served",
      rule("pgkeeper.dev", "databases", ["get", "watch"]),
      "served",
    ],
    ["Secrets: where they are served", rule("", "secrets", ["get", "create"]), "served"],
    ["Events: beside the Database", rule("", "events", ["create"]), "served"],
    [
      "local access reviews: in the Secret's namespace",
      rule("authorization.k8s.io", "localsubjectaccessreviews", ["create"]),
      "served",
    ],
    [
      "StorageClasses: cluster-scoped, read",
      rule("storage.k8s.io", "storageclasses", ["get"]),
      "cluster",
    ],
    [
      "Pepr's PeprStore CRD: its controller re-applies it at every start",
      rule("apiextensions.k8s.io", "customresourcedefinitions", ["patch"], ["peprstores.pepr.dev"]),
      "cluster",
    ],
    [
      "pgkeeper's CRDs: the installer brings them (Helm's crds/)",
      rule(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        ["get", "create", "patch"],
        ["databases.pgkeeper.dev", "backups.pgkeeper.dev"],
      ),
      "dropped",
    ],
    [
      "Pepr's store: the operator's own namespace",
      rule("pepr.dev", "peprstores", ["list", "watch"]),
      "own",
    ],
  ])("%s", (_, given, where) => {
    const scoped = scopedRules([given]);
    const found = (["cluster", "served", "own"] as const).filter(k => scoped[k].includes(given));
    expect(found).toEqual(where === "dropped" ? [] : [where]);
  });

  it("gives the operator's own namespace its pod's patch (the leader's deletion cost)", () => {
    expect(scopedRules([]).own).toEqual([OWN_POD]);
  });

  it.each<[string, V1PolicyRule]>([
    [
      "cluster-scoped and namespaced resources in one rule",
      {
        apiGroups: ["", "storage.k8s.io"],
        resources: ["secrets", "storageclasses"],
        verbs: ["get"],
      },
    ],
    [
      "the operator's own group with another",
      { apiGroups: ["pepr.dev", ""], resources: ["peprstores", "secrets"], verbs: ["get"] },
    ],
  ])("refuses a rule that mixes %s (it could land cluster-wide unseen)", (_, mixed) => {
    expect(() => scopedRules([mixed])).toThrow(/mixes/);
  });
});
