import { DB_NAME, input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { ownerReference } from "./meta";
import { buildPodDisruptionBudgets } from "./pdb";

const selector = (role: string) => ({
  matchLabels: {
    "pgkeeper.dev/database": DB_NAME,
    "app.kubernetes.io/component": "instance",
    "pgkeeper.dev/role": role,
  },
});

describe("buildPodDisruptionBudgets", () => {
  it.each([
    [1, []],
    [2, [`${DB_NAME}-primary`]],
    [3, [`${DB_NAME}-primary`, `${DB_NAME}-replicas`]],
    [5, [`${DB_NAME}-primary`, `${DB_NAME}-replicas`]],
    [9, [`${DB_NAME}-primary`, `${DB_NAME}-replicas`]],
  ])("with %i instances: %p", (instances, names) => {
    expect(buildPodDisruptionBudgets(input({ instances })).map(p => p.metadata.name)).toEqual(
      names,
    );
  });

  const [primary, replicas] = buildPodDisruptionBudgets(input({ instances: 3 }));

  it.each([
    ["primary", primary, { minAvailable: 1 }, selector("primary")],
    ["replicas", replicas, { maxUnavailable: 1 }, selector("replica")],
  ])("%s budget", (_, pdb, limit, sel) => {
    expect(pdb).toMatchObject({ apiVersion: "policy/v1", kind: "PodDisruptionBudget" });
    expect(pdb.metadata.namespace).toBe(NAMESPACE);
    expect(pdb.metadata.labels["pgkeeper.dev/database"]).toBe(DB_NAME);
    expect(pdb.metadata.ownerReferences).toEqual([ownerReference(input().db)]);
    expect(pdb.spec).toEqual({
      ...limit,
      selector: sel,
      unhealthyPodEvictionPolicy: "AlwaysAllow",
    });
  });
});
