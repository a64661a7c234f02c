import { Database } from "../api/database";
import { DatabaseStatus } from "../api/database-schema";
import { isConflict } from "../lib/errors";
import { DatabaseWriter, applyChange, statusPatch } from "./database-writer";
import { FakeCluster } from "../../../test/unit/fake-cluster";

const ready: DatabaseStatus = { phase: "Ready", currentPrimary: "a-0" };

function setup(status: DatabaseStatus = ready) {
  const api = new FakeCluster();
  api.addDatabase({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name: "a", namespace: "n", annotations: { "pgkeeper.dev/switchover-to": "auto" } },
    status,
  } as Database);
  const stored = () => api.databases.get("n/a")!;
  return { api, stored, read: async () => (await api.getDatabase("n", "a"))! };
}

describe("statusPatch", () => {
  it("is undefined when nothing changed", () => {
    expect(statusPatch(ready, { ...ready })).toBeUndefined();
  });

  it("removes fields that disappeared with null (merge patch)", () => {
    expect(statusPatch(ready, { phase: "Degraded" })).toEqual({
      phase: "Degraded",
      currentPrimary: null,
    });
  });
});

describe("applyChange", () => {
  it("sets the given fields and removes those given as undefined", () => {
    expect(applyChange(ready, { phase: "FailingOver", currentPrimary: undefined })).toEqual({
      phase: "FailingOver",
    });
  });
});

describe("DatabaseWriter", () => {
  it("writes only what differs, and builds on its own earlier writes", async () => {
    const { api, stored, read } = setup();
    const writer = new DatabaseWriter(api, await read());
    expect(await writer.write({ ...ready })).toBe(false);
    expect(await writer.update({ phase: "FailingOver", targetPrimary: "a-1" })).toBe(true);
    expect(await writer.update({ currentPrimary: "a-1", phase: "Ready" })).toBe(true);
    expect(stored().status).toEqual({
      phase: "Ready",
      currentPrimary: "a-1",
      targetPrimary: "a-1",
    });
    expect(writer.status).toEqual(stored().status);
    expect(api.calls.patchStatus).toBe(2);
  });

  it("never mutates the Database it read (frozen, as cached objects are)", async () => {
    const { api, read } = setup();
    const db = await read();
    expect(Object.isFrozen(db.status)).toBe(true);
    const writer = new DatabaseWriter(api, db);
    await writer.update({ phase: "Degraded" });
    await writer.removeAnnotation("pgkeeper.dev/switchover-to");
    expect(db.status).toEqual(ready);
  });

  it("fails with a conflict when the Database changed since it was read", async () => {
    const { api, read } = setup();
    const stale = new DatabaseWriter(api, await read());
    const fresh = new DatabaseWriter(api, await read());
    await fresh.update({ phase: "Degraded" });
    const error = await stale.update({ phase: "Ready", currentPrimary: "a-2" }).catch(e => e);
    expect(isConflict(error)).toBe(true);
    expect((await read()).status).toEqual({ ...ready, phase: "Degraded" });
  });

  it("removes a handled annotation at its resourceVersion and writes on after it", async () => {
    const { api, stored, read } = setup();
    const writer = new DatabaseWriter(api, await read());
    await writer.removeAnnotation("pgkeeper.dev/switchover-to");
    await writer.removeAnnotation("pgkeeper.dev/switchover-to"); // gone: nothing to do
    await writer.update({ phase: "Degraded" });
    expect(stored().metadata?.annotations).toEqual({});
    expect(stored().status?.phase).toBe("Degraded");
    expect(api.calls.removeAnnotation).toBe(1);
  });
});
