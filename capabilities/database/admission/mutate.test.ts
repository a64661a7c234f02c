import type { PeprMutateRequest } from "pepr";
import type { Database } from "../api/database";
import { DEFAULT_CONFIG } from "../lib/config";
import { mergeDeepRight } from "ramda";
import { applyDefaults } from "./mutate";
import { validateDatabase } from "./validate";

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

const spec = { version: "15", storage: { size: "10Gi" } };
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

  it("puts YAML's readings back as the strings meant, then defaults, and the result validates", () => {
    const yaml = {
      metadata: { name: "orders", namespace: "shop" },
      spec: {
        ...spec,
        instances: 3,
        resources: { requests: { cpu: 0.5, memory: 1073741824 }, limits: { cpu: 2 } },
        postgresql: {
          parameters: { max_connections: 200, jit: false, work_mem: "4MB" },
          synchronous: { mode: false },
        },
      },
    };
    const { req, merged } = request({ operation: "CREATE", object: yaml });
    applyDefaults(req, DEFAULT_CONFIG);
    expect(merged[0]).toMatchObject({
      spec: {
        resources: { requests: { cpu: "0.5", memory: "1073741824" }, limits: { cpu: "2" } },
        postgresql: {
          parameters: { max_connections: "200", jit: "off" },
          synchronous: { mode: "off" },
        },
        image: "localhost/pgkeeper/postgres:15",
      },
    });
    const after = mergeDeepRight(yaml, merged[0] as object);
    expect(validateDatabase(after)).toEqual([]);
  });

  it("merges the defaults under spec", () => {
    const { req, merged } = request({ operation: "CREATE", object: db });
    applyDefaults(req, DEFAULT_CONFIG);
    expect(merged[0]).toMatchObject({
      spec: { image: "localhost/pgkeeper/postgres:15", instances: 1 },
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

  // What the webhook writes in is then checked by the CRD's rules and the Validate webhook: a
  // default they refuse makes the Database impossible to create (a recovery source once got
  // objectStore.path "/", which its own rule refuses).
  const store = { endpoint: "s3.internal:9000", bucket: "pg", credentials: { secretName: "s3" } };
  it.each<[string, Record<string, unknown>]>([
    ["plain", {}],
    ["archiving", { backup: { objectStore: store } }],
    [
      "restored from a repository",
      { bootstrap: { recovery: { source: { objectStore: store, repositoryPath: "/ns/a/1b2c" } } } },
    ],
  ])("its defaults pass validation: %s", (_title, extra) => {
    const object = { metadata: { name: "orders" }, spec: { ...spec, ...extra } };
    const { req, merged } = request({ operation: "CREATE", object });
    applyDefaults(req, DEFAULT_CONFIG);
    const defaulted = mergeDeepRight(object, merged[0] as object);
    expect(validateDatabase(defaulted)).toEqual([]);
  });
});
