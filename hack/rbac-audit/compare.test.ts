import { compare, PolicyRule, Use, useOf } from "./compare";

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
