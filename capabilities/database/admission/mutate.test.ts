import type { PeprMutateRequest } from "pepr";
import type { Database } from "../api/database";
import { DEFAULT_CONFIG } from "../lib/config";
import { applyDefaults } from "./mutate";

interface FakeInput {
  operation: string;
  object: Record<string, unknown>;
  old?: unknown;
  subResource?: string;
}

/** Just enough of PeprMutateRequest for the adapter; records what was merged. */
function request({ operation, object, old, subResource }: FakeInput) {
  const merged: unknown[] = [];
  const req = {
    Request: { operation, subResource },
    Raw: object,
    OldResource: old,
    Merge: (patch: unknown) => merged.push(patch),
  } as unknown as PeprMutateRequest<Database>;
  return { req, merged };
}

const spec = { version: "16", storage: { size: "10Gi" } };
const db = { metadata: { name: "orders" }, spec };
const dying = { metadata: { name: "orders", deletionTimestamp: "2025-01-01T00:00:00Z" }, spec };

describe("applyDefaults", () => {
  it.each<[string, FakeInput, boolean]>([
    ["create", { operation: "CREATE", object: db }, true],
    ["update", { operation: "UPDATE", object: db, old: db }, true],
    ["delete", { operation: "DELETE", object: db }, false],
    ["object being deleted", { operation: "UPDATE", object: dying, old: db }, false],
    ["status write", { operation: "UPDATE", object: db, old: db, subResource: "status" }, false],
    [
      "malformed spec",
      { operation: "CREATE", object: { spec: { ...spec, instances: "2" } } },
      false,
    ],
    ["no spec", { operation: "CREATE", object: { metadata: {} } }, false],
  ])("%s -> merges %p", (_title, input, merges) => {
    const { req, merged } = request(input);
    applyDefaults(req, DEFAULT_CONFIG);
    expect(merged.length).toBe(merges ? 1 : 0);
  });

  it("merges the defaults under spec", () => {
    const { req, merged } = request({ operation: "CREATE", object: db });
    applyDefaults(req, DEFAULT_CONFIG);
    expect(merged[0]).toMatchObject({
      spec: { image: "docker.io/library/postgres:16", instances: 1 },
    });
  });

  it("keeps the stored image on update when the new spec drops it", () => {
    const old = { ...db, spec: { ...spec, image: "pinned:16" } };
    const { req, merged } = request({ operation: "UPDATE", object: db, old });
    applyDefaults(req, DEFAULT_CONFIG);
    expect(merged[0]).toMatchObject({ spec: { image: "pinned:16" } });
  });

  it("never throws, even when Merge does", () => {
    const { req } = request({ operation: "CREATE", object: db });
    req.Merge = () => {
      throw new Error("boom");
    };
    expect(() => applyDefaults(req, DEFAULT_CONFIG)).not.toThrow();
  });
});
