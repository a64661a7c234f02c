import {
  compare,
  compareScope,
  Grant,
  grantsOf,
  PolicyRule,
  ScopeComparison,
  Use,
  useOf,
} from "./compare";

const rules: PolicyRule[] = [
  { apiGroups: [""], resources: ["secrets", "configmaps"], verbs: ["get", "patch"] },
  { apiGroups: ["apps"], resources: ["statefulsets"], verbs: ["get"] },
  { apiGroups: ["pepr.dev"], resources: ["*"], verbs: ["watch"] },
];

const use = (group: string, resource: string, verb: string): Use => ({ group, resource, verb });

/** Every grant of `rules`, each used once. */
const EVERY_GRANT: Use[] = [
  use("", "secrets", "get"),
  use("", "secrets", "patch"),
  use("", "configmaps", "get"),
  use("", "configmaps", "patch"),
  use("apps", "statefulsets", "get"),
];
const except = (left: Use) => EVERY_GRANT.filter(u => u !== left);

describe("compare", () => {
  it.each<[string, Use[], string[], string[]]>([
    ["every grant used, nothing else", EVERY_GRANT, [], []],
    ["a grant never used", except(EVERY_GRANT[3]), ["core configmaps patch"], []],
    [
      "a use not granted (another verb, a subresource)",
      [
        ...EVERY_GRANT,
        use("apps", "statefulsets", "delete"),
        use("apps", "statefulsets/status", "get"),
      ],
      [],
      ["apps statefulsets delete", "apps statefulsets/status get"],
    ],
    [
      "a wildcard grant covers uses and is never reported unused",
      [...EVERY_GRANT, use("pepr.dev", "peprstores", "watch")],
      [],
      [],
    ],
    [
      "an apply that created an object needs create as well as patch",
      [...except(EVERY_GRANT[1]), { ...use("", "secrets", "patch"), created: true }],
      [],
      ["core secrets create"],
    ],
    [
      "what pepr dev does for pepr deploy is not the operator's",
      [
        ...EVERY_GRANT,
        use("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "patch"),
        use("", "namespaces", "get"),
      ],
      [],
      [],
    ],
  ])("%s", (_, uses, unused, missing) => {
    const result = compare(rules, uses);
    expect(result.unused).toEqual(unused);
    expect(result.missing).toEqual(missing);
  });
});

describe("useOf", () => {
  const users = new Set(["op"]);
  const line = (event: object) =>
    JSON.stringify({ stage: "ResponseComplete", verb: "get", user: { username: "op" }, ...event });

  it.each<[string, string, Use | undefined]>([
    [
      "a core resource",
      line({ objectRef: { resource: "pods", namespace: "a", name: "p" } }),
      { group: "", resource: "pods", verb: "get", namespace: "a", name: "p" },
    ],
    [
      "a subresource of a group",
      line({
        verb: "patch",
        objectRef: { apiGroup: "pgkeeper.dev", resource: "databases", subresource: "status" },
      }),
      { group: "pgkeeper.dev", resource: "databases/status", verb: "patch" },
    ],
    [
      "another user",
      line({ user: { username: "admin" }, objectRef: { resource: "pods" } }),
      undefined,
    ],
    [
      "the RequestReceived stage (counted once, at ResponseComplete)",
      line({ stage: "RequestReceived", objectRef: { resource: "pods" } }),
      undefined,
    ],
    ["a non-resource URL", line({ requestURI: "/healthz" }), undefined],
    ["a torn line", '{"stage":"ResponseComplete"', undefined],
  ])("%s", (_, text, expected) => {
    expect(useOf(text, users)).toEqual(expected);
  });
});

describe("compareScope", () => {
  const inNs = (namespace: string, u: Use, name?: string): Use => ({
    ...u,
    namespace,
    ...(name ? { name } : {}),
  });
  const cluster = (rule: PolicyRule): Grant => ({ rule });
  const role = (namespace: string, rule: PolicyRule): Grant => ({ rule, namespace });
  const secretsGet = { apiGroups: [""], resources: ["secrets"], verbs: ["get"] };
  const leaseByName = {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    resourceNames: ["leader"],
    verbs: ["get"],
  };
  const leaseGet = use("coordination.k8s.io", "leases", "get");

  it.each<[string, Grant[], Use[], Partial<ScopeComparison>]>([
    [
      "a ClusterRole grant used in several namespaces",
      [cluster(secretsGet)],
      [inNs("a", use("", "secrets", "get")), inNs("b", use("", "secrets", "get"))],
      {},
    ],
    [
      "a ClusterRole grant used only in the operator's namespace: a Role there suffices",
      [cluster(secretsGet)],
      [inNs("ops", use("", "secrets", "get"))],
      { wider: ["core secrets get: granted cluster-wide, used only in ops"] },
    ],
    [
      "a Role's grant used in another namespace",
      [role("ops", secretsGet)],
      [inNs("ops", use("", "secrets", "get")), inNs("shop", use("", "secrets", "get"))],
      { outOfScope: ["core secrets get in shop"] },
    ],
    [
      "a Role's grant by name, used by that name",
      [role("ops", leaseByName)],
      [inNs("ops", leaseGet, "leader")],
      {},
    ],
    [
      "a Role's grant by name, used by another name and never by its own",
      [role("ops", leaseByName)],
      [inNs("ops", leaseGet, "other")],
      {
        outOfScope: ["coordination.k8s.io leases get in ops (other)"],
        unusedInScope: ["coordination.k8s.io leases get in ops"],
      },
    ],
    [
      // Pepr 1.1.4's store Role names the object "": it grants nothing.
      'a Role\'s grant for the name "" grants nothing',
      [role("ops", { ...leaseByName, resourceNames: [""] })],
      [inNs("ops", leaseGet, "leader")],
      {
        outOfScope: ["coordination.k8s.io leases get in ops (leader)"],
        unusedInScope: ["coordination.k8s.io leases get in ops"],
      },
    ],
  ])("%s", (_, grants, uses, expected) => {
    expect(compareScope(grants, uses, "ops")).toEqual({
      outOfScope: [],
      wider: [],
      unusedInScope: [],
      ...expected,
    });
  });

  it("reads a Role's namespace and a ClusterRole as cluster-wide", () => {
    expect(
      grantsOf([
        { kind: "ClusterRole", metadata: { name: "c" }, rules: [secretsGet] },
        { kind: "Role", metadata: { name: "r", namespace: "ops" }, rules: [leaseByName] },
      ]),
    ).toEqual([{ rule: secretsGet }, { rule: leaseByName, namespace: "ops" }]);
  });
});
