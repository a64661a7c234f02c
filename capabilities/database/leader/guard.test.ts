import { Database } from "../api/database";
import { FakeCluster } from "../reconcile/testing/fake-cluster";
import { NotLeaderError, guardWrites } from "./guard";

describe("guardWrites", () => {
  it("lets reads through and refuses writes once leadership is lost", async () => {
    const api = new FakeCluster();
    let leading = true;
    const cluster = guardWrites(api, () => leading);
    const db = api.addDatabase({
      apiVersion: "pgkeeper.dev/v1alpha1",
      kind: "Database",
      metadata: { name: "a", namespace: "n" },
    } as Database);
    await cluster.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "n" },
    });
    leading = false;
    await expect(cluster.getDatabase("n", "a")).resolves.toBeDefined();
    await expect(cluster.patchStatus(db, { phase: "Ready" })).rejects.toBeInstanceOf(
      NotLeaderError,
    );
    await expect(
      cluster.recordEvent(db, { type: "Normal", reason: "X", message: "m" }),
    ).rejects.toBeInstanceOf(NotLeaderError);
    expect(api.calls.apply).toBe(1);
    expect(api.calls.patchStatus).toBe(0);
    expect(api.calls.event).toBe(0);
  });
});
