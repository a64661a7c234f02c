import { DB_NAME, input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { ownerReference } from "./meta";
import { buildServices } from "./services";

const selector = { "pgkeeper.dev/database": DB_NAME, "app.kubernetes.io/component": "instance" };
const [rw, ro, hl] = buildServices(input());

describe("buildServices", () => {
  it("returns rw, ro and headless, in that order", () => {
    expect(buildServices(input()).map(s => s.metadata.name)).toEqual([
      `${DB_NAME}-rw`,
      `${DB_NAME}-ro`,
      `${DB_NAME}-hl`,
    ]);
  });

  describe.each([
    ["rw", rw, { ...selector, "pgkeeper.dev/role": "primary" }],
    ["ro", ro, { ...selector, "pgkeeper.dev/role": "replica" }],
    ["hl", hl, selector],
  ])("%s", (_, svc, expectedSelector) => {
    it.each([
      ["apiVersion", "v1"],
      ["kind", "Service"],
      ["metadata.namespace", NAMESPACE],
    ])("sets %s", (path, expected) => {
      expect(svc).toHaveProperty(path, expected);
    });

    it("selects the instance pods by label", () => {
      expect(svc.spec?.selector).toEqual(expectedSelector);
    });

    it("exposes 5432 as the port named postgres", () => {
      expect(svc.spec?.ports).toEqual([
        { name: "postgres", port: 5432, targetPort: 5432, protocol: "TCP" },
      ]);
    });

    it("carries the common labels and one owner reference", () => {
      expect(svc.metadata.labels["pgkeeper.dev/database"]).toBe(DB_NAME);
      expect(svc.metadata.ownerReferences).toEqual([ownerReference(input().db)]);
    });
  });

  it.each([
    ["rw", rw, "ClusterIP", undefined, true],
    ["ro", ro, "ClusterIP", undefined, undefined],
    ["hl", hl, undefined, "None", true],
  ])("%s: type %p, clusterIP %p, publishNotReadyAddresses %p", (_, svc, type, clusterIP, pna) => {
    expect(svc.spec?.type).toBe(type);
    expect(svc.spec?.clusterIP).toBe(clusterIP);
    expect(svc.spec?.publishNotReadyAddresses).toBe(pna);
  });
});
