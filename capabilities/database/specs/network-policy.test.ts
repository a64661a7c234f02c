import { buildNetworkPolicy } from "./network-policy";
import { DB_NAME, input } from "../../../test/unit/builder-fixtures";

const INSTANCES = { "pgkeeper.dev/database": DB_NAME, "app.kubernetes.io/component": "instance" };
const policyOf = (networkPolicy: object | undefined) =>
  buildNetworkPolicy(input(networkPolicy ? { networkPolicy } : {}), "ops");

describe("buildNetworkPolicy", () => {
  it.each([
    ["unset (a Database from before the field)", undefined],
    ["enabled: false", { enabled: false }],
  ])("builds none when %s", (_, networkPolicy) => {
    expect(policyOf(networkPolicy)).toBeUndefined();
  });

  const policy = policyOf({ enabled: true })!;

  it("guards the instance pods, ingress only", () => {
    expect(policy.metadata.name).toBe(DB_NAME);
    expect(policy.spec?.podSelector).toEqual({ matchLabels: INSTANCES });
    expect(policy.spec?.policyTypes).toEqual(["Ingress"]);
  });

  it("lets in the instances and the backup Jobs on PostgreSQL's and pgBackRest's ports", () => {
    const [own] = policy.spec!.ingress!;
    expect(own.from).toEqual([
      { podSelector: { matchLabels: INSTANCES } },
      {
        podSelector: {
          matchLabels: expect.objectContaining({
            "pgkeeper.dev/database": DB_NAME,
            "app.kubernetes.io/component": "backup",
          }),
        },
      },
    ]);
    expect(own.ports).toEqual([
      { protocol: "TCP", port: 5432 },
      { protocol: "TCP", port: 8432 },
    ]);
  });

  it("lets in the operator's namespace on 5432 only", () => {
    const operator = policy.spec!.ingress![1];
    expect(operator.from).toEqual([
      { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ops" } } },
    ]);
    expect(operator.ports).toEqual([{ protocol: "TCP", port: 5432 }]);
  });

  it.each<[string, object, object[] | undefined]>([
    ["no clients named: the namespace's pods", { enabled: true }, [{ podSelector: {} }]],
    [
      "the clients named",
      { enabled: true, clients: [{ namespaceSelector: { matchLabels: { team: "a" } } }] },
      [{ namespaceSelector: { matchLabels: { team: "a" } } }],
    ],
    // An ingress rule with an empty `from` would admit every source.
    ["clients: [] — no client rule at all", { enabled: true, clients: [] }, undefined],
  ])("clients on 5432: %s", (_, networkPolicy, from) => {
    const rules = policyOf(networkPolicy)!.spec!.ingress!;
    if (from === undefined) {
      expect(rules).toHaveLength(3); // the instances', the operator's, the metrics port's
      expect(rules.some(r => r.ports?.some(p => p.port === 5432) && r.from?.length === 0)).toBe(
        false,
      );
      return;
    }
    expect(rules[2]).toEqual({ from, ports: [{ protocol: "TCP", port: 5432 }] });
  });
});

describe("the metrics port", () => {
  const policy = (monitoring: { enabled: boolean }) =>
    buildNetworkPolicy(input({ networkPolicy: { enabled: true }, monitoring }), "ops")!;

  it("is open to every namespace's pods, on 9187 only, while monitoring is on", () => {
    expect(policy({ enabled: true }).spec!.ingress!.at(-1)).toEqual({
      from: [{ namespaceSelector: {} }],
      ports: [{ protocol: "TCP", port: 9187 }],
    });
  });

  it("is not let in at all with monitoring off", () => {
    const ports = policy({ enabled: false }).spec!.ingress!.flatMap(r => r.ports ?? []);
    expect(ports.map(p => p.port)).not.toContain(9187);
  });
});
