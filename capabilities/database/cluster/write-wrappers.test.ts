import { Database } from "../api/database";
import { CLUSTER_METHODS } from "./cluster";
import { FakeCluster } from "../../../test/unit/fake-cluster";
import { NotLeaderError } from "../lib/fence";
import { countWrites, guardWrites } from "./write-wrappers";

const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n" } };

function setup() {
  const api = new FakeCluster();
  const db = api.addDatabase({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name: "a", namespace: "n" },
  } as Database);
  return { api, db };
}

describe("guardWrites", () => {
  it("lets reads through and refuses every write once leadership is lost", async () => {
    const { api, db } = setup();
    let leading = true;
    const cluster = guardWrites(api, () => leading);
    await cluster.apply(configMap);
    leading = false;
    await expect(cluster.getDatabase("n", "a")).resolves.toBeDefined();
    await expect(
      cluster.patchStatus({ namespace: "n", name: "a" }, { phase: "Ready" }),
    ).rejects.toBeInstanceOf(NotLeaderError);
    await expect(
      cluster.recordEvent(db, { type: "Normal", reason: "X", message: "m" }),
    ).rejects.toBeInstanceOf(NotLeaderError);
    expect(api.calls.apply).toBe(1);
    expect(api.calls.patchStatus).toBe(0);
    expect(api.calls.event).toBe(0);
  });

  it("wraps every method of the port, as the method map lists them", () => {
    const { api } = setup();
    const cluster = guardWrites(api, () => true);
    expect(Object.keys(cluster).sort()).toEqual(Object.keys(CLUSTER_METHODS).sort());
  });
});

describe("countWrites", () => {
  it("counts the writes that succeeded, reads not at all", async () => {
    const { api, db } = setup();
    const { cluster, writes } = countWrites(api);
    await cluster.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "n", name: "c" });
    await cluster.apply(configMap);
    await cluster.recordEvent(db, { type: "Normal", reason: "X", message: "m" });
    api.failNext.set("patchLabels", new Error("boom"));
    await expect(
      cluster.patchLabels({ ...configMap.metadata, apiVersion: "v1", kind: "ConfigMap" }, {}),
    ).rejects.toThrow("boom");
    expect(writes()).toBe(2);
  });
});
