import { KubeObject } from "../cluster/cluster";
import { kindKeyOf } from "../api/kinds";
import { ObjectCache } from "./object-cache";

const svc = (
  name: string,
  rv: string,
  extra: Partial<KubeObject["metadata"]> = {},
): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: "team", resourceVersion: rv, uid: `uid-${name}`, ...extra },
});
const SVC = "v1/Service";

describe("ObjectCache", () => {
  it("keys kinds by apiVersion and kind", () => {
    expect(kindKeyOf({ apiVersion: "apps/v1", kind: "StatefulSet" })).toBe("apps/v1/StatefulSet");
  });

  it.each([
    ["nothing cached", undefined, "5", "added"],
    ["newer version", "5", "6", "changed"],
    ["same version (the echo of our own write)", "5", "5", "unchanged"],
    ["older version (an event overtaken by a write's response)", "6", "5", "stale"],
    ["non-numeric versions: the latest delivery wins", "abc", "abd", "changed"],
  ])("upsert with %s", (_name, cached, incoming, outcome) => {
    const cache = new ObjectCache();
    if (cached) cache.upsert(SVC, svc("a", cached));
    expect(cache.upsert(SVC, svc("a", incoming))).toBe(outcome);
    const expected = outcome === "stale" ? cached : incoming;
    expect(cache.get(SVC, "team", "a")?.metadata?.resourceVersion).toBe(expected);
  });

  it("a recreated object (new uid) with the same version number replaces the old one", () => {
    const cache = new ObjectCache();
    cache.upsert(SVC, svc("a", "5"));
    expect(cache.upsert(SVC, svc("a", "5", { uid: "other" }))).toBe("changed");
  });

  it("keeps of managedFields only who wrote with which operation, in place", () => {
    const cache = new ObjectCache();
    const obj = svc("a", "1");
    obj.metadata!.managedFields = [
      { manager: "kubectl", operation: "Update", time: "t", fieldsV1: { "f:spec": {} } },
      { manager: "pepr", operation: "Update", subresource: "status", fieldsV1: { "f:status": {} } },
    ];
    cache.upsert(SVC, obj);
    expect(cache.get(SVC, "team", "a")?.metadata?.managedFields).toEqual([
      { manager: "kubectl", operation: "Update" },
      { manager: "pepr", operation: "Update", subresource: "status" },
    ]);
    const bare = svc("b", "1");
    cache.upsert(SVC, bare);
    expect(cache.get(SVC, "team", "b")?.metadata).not.toHaveProperty("managedFields");
  });

  describe("lists by Database through its index, which follows every change", () => {
    const db = (name: string) => ({ "pgkeeper.dev/database": name });
    const names = (cache: ObjectCache, labels: Record<string, string>) =>
      cache
        .list(SVC, "team", labels)
        .map(o => o.metadata?.name)
        .sort();
    const shared = new ObjectCache(); // one cache through the table's steps, in order
    it.each<[string, (cache: ObjectCache) => void, Record<string, string>, string[]]>([
      ["added", c => c.upsert(SVC, svc("a", "1", { labels: db("x") })), db("x"), ["a"]],
      [
        "label moved to another Database",
        c => c.upsert(SVC, svc("a", "2", { labels: db("y") })),
        db("x"),
        [],
      ],
      ["found under its new Database", () => undefined, db("y"), ["a"]],
      ["label removed", c => c.upsert(SVC, svc("a", "3", { labels: {} })), db("y"), []],
      ["still listed without a Database selector", () => undefined, {}, ["a"]],
      ["labelled again", c => c.upsert(SVC, svc("a", "4", { labels: db("x") })), db("x"), ["a"]],
      [
        "stale delivery changes nothing",
        c => c.upsert(SVC, svc("a", "1", { labels: db("z") })),
        db("x"),
        ["a"],
      ],
      ["removed", c => c.remove(SVC, "team", "a"), db("x"), []],
    ])("%s", (_, change, labels, expected) => {
      change(shared);
      expect(names(shared, labels)).toEqual(expected);
    });
  });

  it("lists by namespace and labels", () => {
    const cache = new ObjectCache();
    cache.upsert(SVC, svc("a", "1", { labels: { db: "x", role: "rw" } }));
    cache.upsert(SVC, svc("b", "1", { labels: { db: "x" } }));
    cache.upsert(SVC, svc("c", "1", { labels: { db: "y" } }));
    cache.upsert(SVC, {
      ...svc("d", "1", { labels: { db: "x" } }),
      metadata: { name: "d", namespace: "other", labels: { db: "x" } },
    });
    expect(cache.list(SVC, "team", { db: "x" }).map(o => o.metadata?.name)).toEqual(["a", "b"]);
    expect(cache.list(SVC, "team", {}).map(o => o.metadata?.name)).toEqual(["a", "b", "c"]);
    expect(cache.list("v1/Secret", "team", {})).toEqual([]);
    expect(cache.sizes()).toEqual({ [SVC]: 4 });
  });

  it("removes only the object it was asked about (not a successor with the same name)", () => {
    const cache = new ObjectCache();
    cache.upsert(SVC, svc("a", "5", { uid: "new" }));
    expect(cache.remove(SVC, "team", "a", "old")).toBe(false);
    expect(cache.get(SVC, "team", "a")).toBeDefined();
    expect(cache.remove(SVC, "team", "a", "new")).toBe(true);
    expect(cache.get(SVC, "team", "a")).toBeUndefined();
    expect(cache.remove(SVC, "team", "a")).toBe(false);
  });

  it("tracks which kinds are synced", () => {
    const cache = new ObjectCache();
    expect(cache.isSynced(SVC)).toBe(false);
    cache.markSynced(SVC);
    expect(cache.isSynced(SVC)).toBe(true);
  });

  it.each<[string, [string | undefined][], string | undefined, boolean]>([
    ["nothing listed", [], "shop", false],
    ["listed everywhere", [[undefined]], "shop", true],
    ["listed in that namespace", [["shop"]], "shop", true],
    // A served namespace whose watch cannot list (deleted) leaves the others on the cache.
    ["listed in another namespace only", [["billing"]], "shop", false],
    ["asked for everywhere, listed in one namespace", [["shop"]], undefined, false],
  ])("isSynced by namespace: %s", (_, marks, namespace, expected) => {
    const cache = new ObjectCache();
    for (const [ns] of marks) cache.markSynced(SVC, ns);
    expect(cache.isSynced(SVC, namespace)).toBe(expected);
  });
});
