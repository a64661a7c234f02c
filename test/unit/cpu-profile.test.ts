import type { CpuProfile, Resolve } from "../../bench/lib/cpu-profile";
import { shortPath, summarize } from "../../bench/lib/cpu-profile";

const BUNDLE = "file:///app/dist/pepr-pgkeeper.js";
const frame = (id: number, functionName: string, url = "", lineNumber = 0, columnNumber = 0) => ({
  id,
  callFrame: { functionName, url, lineNumber, columnNumber },
});

/** Bundle line 0 is reconcile/diff.ts, line 1 a dependency; line 2 has no mapping. */
const resolve: Resolve = (url, line) =>
  url !== BUNDLE
    ? undefined
    : [
        { file: "../capabilities/database/reconcile/diff.ts", name: "hashOf", line: 12 },
        { file: "../node_modules/yaml/dist/index.js", name: "", line: 40 },
      ][line];

const PROFILE: CpuProfile = {
  nodes: [
    frame(1, "(root)"),
    frame(2, "(idle)"),
    frame(3, "(garbage collector)"),
    frame(4, "a", BUNDLE, 0, 10),
    frame(5, "b", BUNDLE, 1, 3),
    frame(6, "c", BUNDLE, 2, 0),
    frame(7, "emit", "node:events", 500, 4),
  ],
  samples: [2, 4, 4, 3, 5, 6, 7, 2],
  timeDeltas: [0, 3000, 3000, 1000, 1000, 1000, 1000, 90_000],
};

describe("summarize", () => {
  const s = summarize(PROFILE, resolve);

  it("counts idle apart, weighting each sample by its delta", () => {
    expect(s.idleMs).toBe(90);
    expect(s.busyMs).toBe(10);
  });

  it.each([
    ["capabilities/database/reconcile/diff.ts", 6, 0.6],
    ["(garbage collector)", 1, 0.1],
    ["node_modules/yaml/dist/index.js", 1, 0.1],
    ["/app/dist/pepr-pgkeeper.js", 1, 0.1],
    ["node:events", 1, 0.1],
  ])("by file: %s %d ms", (key, ms, share) => {
    expect(s.byFile).toContainEqual({ key, ms, share });
  });

  it("ranks by time, the largest first", () => {
    expect(s.byFile[0].key).toBe("capabilities/database/reconcile/diff.ts");
    expect(s.byFunction[0]).toEqual({
      key: "capabilities/database/reconcile/diff.ts:12 hashOf",
      ms: 6,
      share: 0.6,
    });
  });

  it("names an unmapped frame by the bundle's position and V8's name", () => {
    expect(s.byFunction.map(f => f.key)).toContain("/app/dist/pepr-pgkeeper.js:3 c");
  });

  it("gives an empty profile no shares", () => {
    const empty = summarize({ nodes: [], samples: [], timeDeltas: [] }, resolve);
    expect(empty).toEqual({ busyMs: 0, idleMs: 0, byFile: [], byFunction: [] });
  });
});

describe("shortPath", () => {
  it.each([
    [
      "../node_modules/@kubernetes/client-node/dist/x.js",
      "node_modules/@kubernetes/client-node/dist/x.js",
    ],
    ["../node_modules/a/node_modules/b/i.js", "node_modules/b/i.js"],
    ["../capabilities/database/lib/workqueue.ts", "capabilities/database/lib/workqueue.ts"],
    ["/work/main/capabilities/x.ts", "capabilities/x.ts"],
    ["node:internal/streams", "node:internal/streams"],
  ])("%s -> %s", (path, expected) => expect(shortPath(path)).toBe(expected));
});
