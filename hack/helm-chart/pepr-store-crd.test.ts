import { peprStoreCrd } from "./pepr-store-crd";

describe("peprStoreCrd", () => {
  it("is Pepr's PeprStore CRD, the one its controller re-applies at every start", () => {
    const crd = peprStoreCrd() as {
      metadata: { name: string };
      spec: { group: string; scope: string; names: { kind: string } };
    };
    expect(crd.metadata.name).toBe("peprstores.pepr.dev");
    expect(crd.spec).toMatchObject({ group: "pepr.dev", scope: "Namespaced" });
    expect(crd.spec.names.kind).toBe("PeprStore");
  });
});
