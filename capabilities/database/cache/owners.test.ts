import { KubeObject } from "../cluster/cluster";
import { Owners } from "./owners";

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
  it("a new Database: its namespace's objects with its name, every kind; once", () => {
    const owners = new Owners();
    expect(owners.addDatabase("shop", "orders")).toEqual({
      namespace: "shop",
      selector: "pgkeeper.dev/database=orders",
    });
    expect(owners.addDatabase("shop", "orders")).toBeUndefined();
    owners.removeDatabase("shop", "orders");
    expect(owners.hasDatabase("shop", "orders")).toBe(false);
    expect(owners.addDatabase("shop", "orders")).toBeDefined();
  });

  it("a new Backup: its Job and the Job's pod", () => {
    const owners = new Owners();
    expect(owners.addBackup("shop", "nightly-1")).toEqual({
      namespace: "shop",
      selector: "pgkeeper.dev/backup=nightly-1",
      kinds: ["Job", "Pod"],
    });
    expect(owners.addBackup("shop", "nightly-1")).toBeUndefined();
  });

  it("a Backup with a name too long for a label: its Job's label carries the shortened name", () => {
    const owners = new Owners();
    const long = `nightly-${"x".repeat(70)}`;
    const target = owners.addBackup("shop", long);
    const job = target?.selector.split("=")[1] ?? "";
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
