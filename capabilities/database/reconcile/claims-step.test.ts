import { Database } from "../api/database";
import { KubeObject } from "../cluster/cluster";
import { claimOwner, claimsToOwn } from "./claims-step";

const db = {
  apiVersion: "pgkeeper.dev/v1alpha1",
  kind: "Database",
  metadata: {
    name: "orders",
    namespace: "prod",
    uid: "db-uid",
    // Typed as a Date by the client library; what is read from the API is the same instant.
    creationTimestamp: new Date("2026-12-01T10:00:00Z"),
  },
} as Database;

type Meta = NonNullable<KubeObject["metadata"]>;
const claim = (name: string, meta: Partial<Meta> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, namespace: "prod", creationTimestamp: "2026-12-01T10:00:05Z", ...meta },
});
const statefulSetRef = { apiVersion: "apps/v1", kind: "StatefulSet", name: "orders", uid: "s" };

describe("claimsToOwn: the data claims a Database adopts", () => {
  it.each<[string, KubeObject, boolean]>([
    ["an instance's data claim with no owner", claim("pgdata-orders-0"), true],
    [
      "one its StatefulSet still controls (a Database from before Retain)",
      claim("pgdata-orders-1", { ownerReferences: [{ ...statefulSetRef, controller: true }] }),
      true,
    ],
    ["one it owns already", claim("pgdata-orders-0", { ownerReferences: [claimOwner(db)] }), false],
    [
      "one another Database of the same name owns (deleted before this one was created)",
      claim("pgdata-orders-0", { ownerReferences: [{ ...claimOwner(db), uid: "old-uid" }] }),
      false,
    ],
    [
      "one created before the Database (not its data)",
      claim("pgdata-orders-0", { creationTimestamp: "2026-12-01T09:59:59Z" }),
      false,
    ],
    [
      "one created in the Database's second",
      claim("pgdata-orders-0", { creationTimestamp: "2026-12-01T10:00:00Z" }),
      true,
    ],
    [
      "one being deleted",
      claim("pgdata-orders-0", { deletionTimestamp: "2026-12-01T11:00:00Z" }),
      false,
    ],
    ["the backup volume (a child, owned when built)", claim("orders-backups"), false],
    ["the data claim of Database orders-archive", claim("pgdata-orders-archive-0"), false],
  ])("%s", (_, c, adopted) => {
    expect(claimsToOwn([c], db, "orders")).toEqual(adopted ? [c] : []);
  });

  it("owns without controlling: the StatefulSet controller may still hold the controller reference", () => {
    expect(claimOwner(db)).toEqual({
      apiVersion: "pgkeeper.dev/v1alpha1",
      kind: "Database",
      name: "orders",
      uid: "db-uid",
      controller: false,
      blockOwnerDeletion: true,
    });
  });
});
