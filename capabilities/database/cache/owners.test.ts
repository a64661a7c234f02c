import { KubeObject } from "../cluster/cluster";
import { DROPPED_LIMIT, Owners } from "./owners";
import { jobNameFor } from "../specs/backup-job";

const labelled = (namespace: string, labels: Record<string, string>): KubeObject => ({
  metadata: { namespace, name: "x", labels },
});
const ours = { "app.kubernetes.io/managed-by": "pgkeeper" };

describe("Owners.owns: only objects of known Databases and Backups, in their namespace", () => {
  const owners = new Owners();
  owners.addDatabase("shop", "orders");
  owners.addBackup("shop", "nightly-1");

  it.each<[string, KubeObject, boolean]>([
    [
      "a child of a known Database",
      labelled("shop", { ...ours, "pgkeeper.dev/database": "orders" }),
      true,
    ],
    [
      "the same labels in another namespace",
      labelled("evil", { ...ours, "pgkeeper.dev/database": "orders" }),
      false,
    ],
    [
      "a child of an unknown Database",
      labelled("shop", { ...ours, "pgkeeper.dev/database": "ghost" }),
      false,
    ],
    [
      "our Database label without our managed-by",
      labelled("shop", { "pgkeeper.dev/database": "orders" }),
      false,
    ],
    ["managed-by alone", labelled("shop", ours), false],
    [
      "a known Backup's Job, its Database deleted",
      labelled("shop", {
        ...ours,
        "pgkeeper.dev/database": "gone",
        "pgkeeper.dev/backup": "nightly-1",
      }),
      true,
    ],
    [
      "an unknown Backup's Job",
      labelled("shop", { ...ours, "pgkeeper.dev/backup": "other" }),
      false,
    ],
  ])("%s: %s", (_, obj, expected) => {
    expect(owners.owns(obj)).toBe(expected);
  });
});

describe("Owners: what an arriving owner asks to be listed again", () => {
  const childOf = (database: string, namespace = "shop") =>
    labelled(namespace, { ...ours, "pgkeeper.dev/database": database });

  it("a new Database none of whose children were dropped: nothing to list", () => {
    const owners = new Owners();
    expect(owners.keep(childOf("other"))).toBe(false); // someone else's, dropped
    expect(owners.keep(childOf("orders", "elsewhere"))).toBe(false);
    expect(owners.addDatabase("shop", "orders")).toBeUndefined();
    expect(owners.hasDatabase("shop", "orders")).toBe(true);
  });

  it("a Database some of whose children were dropped: its namespace's objects with its name, every kind; once", () => {
    const owners = new Owners();
    expect(owners.keep(childOf("orders"))).toBe(false);
    expect(owners.addDatabase("shop", "orders")).toEqual({
      namespace: "shop",
      selector: "pgkeeper.dev/database=orders",
    });
    expect(owners.keep(childOf("orders"))).toBe(true);
    expect(owners.addDatabase("shop", "orders")).toBeUndefined();
    owners.removeDatabase("shop", "orders");
    expect(owners.hasDatabase("shop", "orders")).toBe(false);
    expect(owners.addDatabase("shop", "orders")).toBeUndefined(); // nothing dropped since
    owners.removeDatabase("shop", "orders");
    owners.keep(childOf("orders")); // the old one's children, deleted after it
    expect(owners.addDatabase("shop", "orders")).toBeDefined();
  });

  it("objects without our managed-by label are not remembered", () => {
    const owners = new Owners();
    owners.keep(labelled("shop", { "pgkeeper.dev/database": "orders" }));
    expect(owners.addDatabase("shop", "orders")).toBeUndefined();
  });

  it("past its limit of remembered owners, every arriving owner is listed again", () => {
    const owners = new Owners();
    for (let i = 0; i <= DROPPED_LIMIT; i++) owners.keep(childOf(`impostor-${i}`, "tenant"));
    expect(owners.addDatabase("shop", "orders")).toBeDefined();
    expect(owners.addBackup("shop", "nightly-1")).toBeDefined();
  });

  it("a Backup whose Job or pod was dropped: its Job and the Job's pod", () => {
    const owners = new Owners();
    owners.keep(labelled("shop", { ...ours, "pgkeeper.dev/backup": "nightly-1" }));
    expect(owners.addBackup("shop", "nightly-1")).toEqual({
      namespace: "shop",
      selector: "pgkeeper.dev/backup=nightly-1",
      kinds: ["Job", "Pod"],
    });
    expect(owners.addBackup("shop", "nightly-1")).toBeUndefined();
    expect(owners.addBackup("shop", "nightly-2")).toBeUndefined(); // nothing of it dropped
  });

  it("a Backup with a name too long for a label: its Job's label carries the shortened name", () => {
    const owners = new Owners();
    const long = `nightly-${"x".repeat(70)}`;
    owners.addBackup("shop", long);
    const job = jobNameFor(long);
    expect(job.length).toBeLessThanOrEqual(63);
    const jobObject = labelled("shop", { ...ours, "pgkeeper.dev/backup": job });
    expect(owners.owns(jobObject)).toBe(true);
    owners.removeBackup("shop", long);
    expect(owners.owns(jobObject)).toBe(false);
  });

  it("a removed owner's children are not kept any more", () => {
    const owners = new Owners();
    owners.addDatabase("shop", "orders");
    const child = labelled("shop", { ...ours, "pgkeeper.dev/database": "orders" });
    expect(owners.owns(child)).toBe(true);
    owners.removeDatabase("shop", "orders");
    expect(owners.owns(child)).toBe(false);
  });
});
