import type { PeprValidateRequest } from "pepr";
import type { Database } from "../api/database";
import type { AdmissionReader } from "./cluster-reader";
import { DEFAULT_CONFIG } from "../lib/config";
import { validateDatabaseRequestWith } from "./validate";

/**
 * A cluster where every Secret exists, every user may read it, and no Database or claim exists:
 * the reads pass.
 */
const emptyCluster: AdmissionReader = {
  secretExists: async () => true,
  mayGetSecret: async () => true,
  database: async () => null,
  claimsOf: async () => [],
  allowsExpansion: async () => null,
};
const validateDatabaseRequest = validateDatabaseRequestWith(emptyCluster);

interface FakeInput {
  operation: string;
  object: unknown;
  old?: unknown;
  subResource?: string;
}

/** Just enough of PeprValidateRequest for the adapter (no pepr runtime in unit tests). */
const TENANT = { username: "tenant-a", groups: ["tenants", "system:authenticated"] };

const request = ({ operation, object, old, subResource }: FakeInput) =>
  ({
    Request: {
      operation,
      subResource,
      namespace: "shop",
      object,
      oldObject: old,
      userInfo: TENANT,
    },
    Raw: object,
    OldResource: old,
    Approve: (warnings?: string[]) => ({ allowed: true, ...(warnings ? { warnings } : {}) }),
    Deny: (statusMessage?: string) => ({ allowed: false, statusMessage }),
  }) as unknown as PeprValidateRequest<Database>;

const valid = { metadata: { name: "orders" }, spec: { version: "15", storage: { size: "10Gi" } } };
const invalid = {
  metadata: { name: "orders" },
  spec: { version: "13", storage: { size: "10Gi" } },
};
const shrunk = { ...valid, spec: { ...valid.spec, storage: { size: "5Gi" } } };
const dying = {
  ...invalid,
  metadata: { name: "orders", deletionTimestamp: "2025-01-01T00:00:00Z" },
};

describe("validateDatabaseRequest", () => {
  it.each<[string, FakeInput, boolean]>([
    ["valid create", { operation: "CREATE", object: valid }, true],
    ["invalid create", { operation: "CREATE", object: invalid }, false],
    ["shrinking update", { operation: "UPDATE", object: shrunk, old: valid }, false],
    ["growing update", { operation: "UPDATE", object: valid, old: shrunk }, true],
    ["delete", { operation: "DELETE", object: invalid }, true],
    ["object being deleted", { operation: "UPDATE", object: dying, old: valid }, true],
    [
      "status write",
      { operation: "UPDATE", object: invalid, old: valid, subResource: "status" },
      true,
    ],
    ["malformed create", { operation: "CREATE", object: { spec: 5 } }, false],
  ])("%s -> allowed %p", async (_title, input, allowed) => {
    expect((await validateDatabaseRequest(request(input))).allowed).toBe(allowed);
  });

  it("denies with field-first messages", async () => {
    const response = await validateDatabaseRequest(
      request({ operation: "UPDATE", object: shrunk, old: valid }),
    );
    expect(response).toEqual({
      allowed: false,
      statusMessage: "spec.storage.size: cannot shrink from 10Gi to 5Gi; storage can only grow",
    });
  });

  it("denies instead of throwing when the request itself is broken", async () => {
    const broken = {
      get Request(): never {
        throw new Error("no request");
      },
      Approve: () => ({ allowed: true }),
      Deny: (statusMessage?: string) => ({ allowed: false, statusMessage }),
    } as unknown as PeprValidateRequest<Database>;
    expect(await validateDatabaseRequest(broken)).toEqual({
      allowed: false,
      statusMessage: "pgkeeper could not validate this Database: no request",
    });
  });

  it("judges the object as sent, keys a JavaScript clone would drop included", async () => {
    // JSON.parse keeps "__proto__" as an own key; Pepr's Raw (a ramda clone) has lost it.
    const sent = JSON.parse(
      '{"metadata":{"name":"orders"},"spec":{"version":"15","storage":{"size":"10Gi"},' +
        '"postgresql":{"parameters":{"__proto__":"1"}}}}',
    );
    const req = request({ operation: "CREATE", object: sent });
    (req as unknown as { Raw: unknown }).Raw = valid;
    const response = await validateDatabaseRequest(req);
    expect(response).toMatchObject({
      allowed: false,
      statusMessage: expect.stringContaining("spec.postgresql.parameters[__proto__]"),
    });
  });

  describe("the recovery source's reads", () => {
    const recovering = {
      metadata: { name: "restored" },
      spec: {
        ...valid.spec,
        bootstrap: {
          recovery: {
            source: {
              objectStore: {
                endpoint: "s3.example",
                bucket: "pg",
                credentials: { secretName: "s3" },
              },
              repositoryPath: "/prod/shop/orders/0f8e6c1a",
            },
          },
        },
      },
    };
    const noSecrets: AdmissionReader = {
      ...emptyCluster,
      secretExists: async () => false,
    };

    it("refuses a create whose Secret is missing, naming it", async () => {
      const response = await validateDatabaseRequestWith(noSecrets)(
        request({ operation: "CREATE", object: recovering }),
      );
      expect(response).toEqual({
        allowed: false,
        statusMessage: expect.stringMatching(
          /^spec\.bootstrap\.recovery\.source\.objectStore\.credentials\.secretName: Secret "s3" does not exist in namespace "shop"/,
        ),
      });
    });

    it("reads nothing on update (bootstrap is immutable after creation)", async () => {
      const reads: string[] = [];
      const recording: AdmissionReader = {
        ...emptyCluster,
        secretExists: async (_, name) => (reads.push(name), false),
        database: async (_, name) => (reads.push(name), null),
      };
      const changed = { ...recovering, spec: { ...recovering.spec, instances: 2 } };
      const response = await validateDatabaseRequestWith(recording)(
        request({ operation: "UPDATE", object: changed, old: recovering }),
      );
      expect(response).toEqual({ allowed: true });
      expect(reads).toEqual([]);
    });

    it("refuses nothing else on a read that fails", async () => {
      const failing: AdmissionReader = {
        ...emptyCluster,
        secretExists: async () => undefined,
        database: async () => undefined,
      };
      const response = await validateDatabaseRequestWith(failing)(
        request({ operation: "CREATE", object: recovering }),
      );
      expect(response).toEqual({ allowed: true });
    });
  });
  describe("Secrets the author may read (secret-access.ts)", () => {
    const backedUp = {
      ...valid,
      spec: {
        ...valid.spec,
        backup: {
          objectStore: { endpoint: "s3.example", bucket: "b", credentials: { secretName: "s3" } },
        },
      },
    };

    it("asks as the requesting user, and refuses a Secret they may not get", async () => {
      const asked: unknown[] = [];
      const forbidden: AdmissionReader = {
        ...emptyCluster,
        mayGetSecret: async (user, namespace, name) => (asked.push([user, namespace, name]), false),
      };
      const response = await validateDatabaseRequestWith(forbidden)(
        request({ operation: "CREATE", object: backedUp }),
      );
      expect(asked).toEqual([[TENANT, "shop", "s3"]]);
      expect(response).toEqual({
        allowed: false,
        statusMessage:
          'spec.backup.objectStore.credentials.secretName: tenant-a may not get Secret "s3" in namespace "shop", and a Database may only name Secrets its author may read',
      });
    });

    it("asks on an update that names a new Secret, not for one named before", async () => {
      const asked: string[] = [];
      const recording: AdmissionReader = {
        ...emptyCluster,
        mayGetSecret: async (_, __, name) => (asked.push(name), false),
      };
      const again = { ...backedUp, spec: { ...backedUp.spec, instances: 2 } };
      expect(
        await validateDatabaseRequestWith(recording)(
          request({ operation: "UPDATE", object: again, old: backedUp }),
        ),
      ).toEqual({ allowed: true });
      expect(asked).toEqual([]);
      const response = await validateDatabaseRequestWith(recording)(
        request({ operation: "UPDATE", object: backedUp, old: valid }),
      );
      expect(response.allowed).toBe(false);
      expect(asked).toEqual(["s3"]);
    });
  });

  describe("storage growth (storage-growth.ts)", () => {
    const grown = { ...valid, spec: { ...valid.spec, storage: { size: "20Gi" } } };
    const fixedClass: AdmissionReader = {
      ...emptyCluster,
      claimsOf: async () => [{ name: "pgdata-orders-0", class: "local-path" }],
      allowsExpansion: async () => false,
    };

    it("refuses a growth the claims' StorageClass cannot take, naming the claim and the class", async () => {
      const response = await validateDatabaseRequestWith(fixedClass)(
        request({ operation: "UPDATE", object: grown, old: valid }),
      );
      expect(response).toEqual({
        allowed: false,
        statusMessage:
          'spec.storage.size: cannot grow from 10Gi to 20Gi: claim pgdata-orders-0\'s StorageClass "local-path" does not allow volume expansion (allowVolumeExpansion is not true); the claims would stay 10Gi',
      });
    });

    it("reads nothing for an update that does not grow the storage", async () => {
      const reads: string[] = [];
      const recording: AdmissionReader = {
        ...fixedClass,
        claimsOf: async (_, name) => (reads.push(name), []),
      };
      const changed = { ...valid, spec: { ...valid.spec, instances: 2 } };
      const response = await validateDatabaseRequestWith(recording)(
        request({ operation: "UPDATE", object: changed, old: valid }),
      );
      expect(response).toEqual({ allowed: true });
      expect(reads).toEqual([]);
    });
  });
});

describe("warnings on admitted updates", () => {
  const store = { endpoint: "s3.example", bucket: "b", credentials: { secretName: "s3" } };
  const withBackup = (backup: object) => ({ ...valid, spec: { ...valid.spec, backup } });
  it("warns when a revert drops backup.retentionDays, and admits it", async () => {
    const before = withBackup({ objectStore: store, retention: 7, retentionDays: 30 });
    const after = withBackup({ objectStore: store, retention: 7 });
    const response = (await validateDatabaseRequest(
      request({ operation: "UPDATE", object: after, old: before }),
    )) as { allowed: boolean; warnings?: string[] };
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual([
      expect.stringContaining("spec.backup.retentionDays removed"),
    ]);
  });

  it("says nothing on an update that keeps them", async () => {
    const same = withBackup({ objectStore: store, retention: 7, retentionDays: 30 });
    const response = (await validateDatabaseRequest(
      request({
        operation: "UPDATE",
        object: { ...same, metadata: { name: "orders" } },
        old: same,
      }),
    )) as { warnings?: string[] };
    expect(response.warnings).toBeUndefined();
  });
});

describe("a namespaced install (PGKEEPER_WATCH_NAMESPACES)", () => {
  const servingOnly = (...watchNamespaces: string[]) =>
    validateDatabaseRequestWith(emptyCluster, () => ({ ...DEFAULT_CONFIG, watchNamespaces }));
  const relabelled = { ...valid, metadata: { ...valid.metadata, labels: { team: "a" } } };
  const grown = { ...valid, spec: { ...valid.spec, storage: { size: "20Gi" } } };

  it.each<[string, string[], FakeInput, boolean]>([
    [
      "a create in a served namespace",
      ["billing", "shop"],
      { operation: "CREATE", object: valid },
      true,
    ],
    ["a create elsewhere", ["billing"], { operation: "CREATE", object: valid }, false],
    [
      "an invalid create elsewhere (the namespace is what it hears first)",
      ["billing"],
      { operation: "CREATE", object: invalid },
      false,
    ],
    [
      "a spec change elsewhere",
      ["billing"],
      { operation: "UPDATE", object: grown, old: valid },
      false,
    ],
    // A Database stored before the install became namespaced stays editable and deletable.
    [
      "a label change elsewhere",
      ["billing"],
      { operation: "UPDATE", object: relabelled, old: valid },
      true,
    ],
  ])("%s", async (_, namespaces, input, allowed) => {
    const response = await servingOnly(...namespaces)(request(input));
    expect(response.allowed).toBe(allowed);
    if (!allowed) {
      expect(response).toMatchObject({
        statusMessage:
          'metadata.namespace: "shop" is not served by this pgkeeper install, which runs Databases only in namespaces billing (PGKEEPER_WATCH_NAMESPACES; Helm value watchNamespaces)',
      });
    }
  });
});
