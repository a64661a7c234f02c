import { CheckedDatabase } from "./rules/types";
import { ClaimReader, storageGrowthDenials } from "./storage-growth";

const db = (size: string): CheckedDatabase =>
  ({ metadata: { name: "orders" }, spec: { version: "16", storage: { size } } }) as CheckedDatabase;

/** Claims by name → class, classes → allowVolumeExpansion (null: no such class). */
function reader(
  claims: Record<string, string> | undefined,
  classes: Record<string, boolean | null | undefined>,
): ClaimReader {
  return {
    claimsOf: async () =>
      claims &&
      Object.entries(claims).map(([name, storageClass]) => ({ name, class: storageClass })),
    allowsExpansion: async name => classes[name],
  };
}

const growth = "cannot grow from 1Gi to 2Gi";

describe("storageGrowthDenials", () => {
  it.each<
    [
      string,
      string,
      Record<string, string> | undefined,
      Record<string, boolean | null | undefined>,
      string | undefined,
    ]
  >([
    ["an expandable class", "2Gi", { "pgdata-orders-0": "gp3" }, { gp3: true }, undefined],
    [
      "a class without expansion",
      "2Gi",
      { "pgdata-orders-0": "local-path", "pgdata-orders-1": "local-path" },
      { "local-path": false },
      `${growth}: claim pgdata-orders-0's StorageClass "local-path" does not allow volume expansion (allowVolumeExpansion is not true); claim pgdata-orders-1's StorageClass "local-path" does not allow volume expansion (allowVolumeExpansion is not true); the claims would stay 1Gi`,
    ],
    [
      "one claim of another class that cannot",
      "2Gi",
      { "pgdata-orders-0": "gp3", "pgdata-orders-1": "slow" },
      { gp3: true, slow: false },
      `${growth}: claim pgdata-orders-1's StorageClass "slow" does not allow volume expansion (allowVolumeExpansion is not true); the claims would stay 1Gi`,
    ],
    [
      "a claim bound by hand",
      "2Gi",
      { "pgdata-orders-0": "" },
      {},
      `${growth}: claim pgdata-orders-0 has no StorageClass (a volume bound by hand cannot be expanded); the claims would stay 1Gi`,
    ],
    [
      "a class that is gone",
      "2Gi",
      { "pgdata-orders-0": "gone" },
      { gone: null },
      `${growth}: claim pgdata-orders-0's StorageClass "gone" does not exist; the claims would stay 1Gi`,
    ],
    [
      "a class that cannot be read",
      "2Gi",
      { "pgdata-orders-0": "gp3" },
      { gp3: undefined },
      undefined,
    ],
    ["claims that cannot be listed", "2Gi", undefined, {}, undefined],
    ["no claims yet", "2Gi", {}, {}, undefined],
    [
      "only the legacy backup claim",
      "2Gi",
      { "orders-backups": "slow" },
      { slow: false },
      undefined,
    ],
    ["no growth", "1Gi", { "pgdata-orders-0": "slow" }, { slow: false }, undefined],
  ])("%s", async (_, size, claims, classes, message) => {
    const denials = await storageGrowthDenials(
      db(size),
      db("1Gi"),
      "shop",
      "orders",
      reader(claims, classes),
    );
    expect(denials).toEqual(message ? [{ field: "spec.storage.size", message }] : []);
  });

  it("reads nothing on create", async () => {
    const asked: string[] = [];
    const recording: ClaimReader = {
      claimsOf: async () => (asked.push("claims"), []),
      allowsExpansion: async () => (asked.push("class"), false),
    };
    expect(await storageGrowthDenials(db("2Gi"), undefined, "shop", "orders", recording)).toEqual(
      [],
    );
    expect(asked).toEqual([]);
  });
});
