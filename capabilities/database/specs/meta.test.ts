import { childMeta, identity, OWNER_API_VERSION, OWNER_KIND, ownerReference } from "./meta";
import { database, DB_NAME, input, NAMESPACE, UID } from "../../../test/unit/builder-fixtures";

describe("owner identity", () => {
  it("is the Database API's", () => {
    expect([OWNER_API_VERSION, OWNER_KIND]).toEqual(["pgkeeper.dev/v1alpha1", "Database"]);
  });
});

describe("ownerReference", () => {
  it.each([
    ["apiVersion", "pgkeeper.dev/v1alpha1"],
    ["kind", "Database"],
    ["name", DB_NAME],
    ["uid", UID],
    ["controller", true],
    ["blockOwnerDeletion", true],
  ])("sets %s", (field, expected) => {
    expect(ownerReference(database())).toHaveProperty(field, expected);
  });
});

describe("identity", () => {
  it.each(["name", "namespace", "uid"] as const)("throws without metadata.%s", field => {
    const db = database();
    delete db.metadata![field];
    expect(() => identity(db)).toThrow(/name, namespace and uid/);
  });
});

describe("childMeta", () => {
  const meta = childMeta(input(), "x", { extra: "label" });
  it.each([
    ["name", "x"],
    ["namespace", NAMESPACE],
    ["labels.pgkeeper\\.dev/database", DB_NAME],
    ["labels.app\\.kubernetes\\.io/managed-by", "pgkeeper"],
    ["labels.extra", "label"],
  ])("sets %s", (path, expected) => {
    expect(meta).toHaveProperty(
      path.split(/(?<!\\)\./).map(p => p.replace(/\\\./g, ".")),
      expected,
    );
  });
  it("has exactly one owner reference, the Database", () => {
    expect(meta.ownerReferences).toEqual([ownerReference(database())]);
  });
});
