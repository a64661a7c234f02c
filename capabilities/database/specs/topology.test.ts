import { DB_NAME, input } from "../../../test/unit/builder-fixtures";
import { buildTopologyConfigMap } from "./topology";
import { buildStatefulSet } from "./statefulset";

describe("buildTopologyConfigMap", () => {
  it.each([
    ["ordinal 0 before any failover", undefined, `${DB_NAME}-0`],
    ["the target primary", `${DB_NAME}-2`, `${DB_NAME}-2`],
  ])("names %s", (_, primary, expected) => {
    const cm = buildTopologyConfigMap({ ...input({ instances: 3 }), primary });
    expect(cm.metadata.name).toBe(`${DB_NAME}-topology`);
    expect(cm.data).toEqual({ primary: expected });
  });

  it("says the Database holds data once status.initializedAt is set", () => {
    const built = input({ instances: 3 });
    const at = "2026-11-29T10:00:00.000Z";
    const db = { ...built.db, status: { ...built.db.status, initializedAt: at } };
    expect(buildTopologyConfigMap({ ...built, db }).data).toEqual({
      primary: `${DB_NAME}-0`,
      initialized: at,
    });
  });

  it("is mounted read-only at /topology in every instance", () => {
    const sts = buildStatefulSet(input({ instances: 3 }), "hash");
    const pod = sts.spec?.template.spec;
    expect(pod?.volumes).toContainEqual({
      name: "topology",
      configMap: { name: `${DB_NAME}-topology` },
    });
    expect(pod?.containers[0].volumeMounts).toContainEqual({
      name: "topology",
      mountPath: "/topology",
      readOnly: true,
    });
  });
});

describe("StatefulSet replicas", () => {
  it.each([
    ["spec.instances by default", undefined, 3],
    ["the override while the primary's ordinal must stay", 4, 4],
  ])("are %s", (_, replicas, expected) => {
    expect(buildStatefulSet({ ...input({ instances: 3 }), replicas }, "h").spec?.replicas).toBe(
      expected,
    );
  });
});
