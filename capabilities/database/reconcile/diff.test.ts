import {
  ANNOTATION_APPLIED_HASH,
  childChange,
  contentHash,
  isSubset,
  withAppliedHash,
} from "./diff";

describe("isSubset", () => {
  it.each([
    ["equal scalars", 1, 1, true],
    ["different scalars", "a", "b", false],
    ["extra live fields are fine", { a: 1 }, { a: 1, b: 2 }, true],
    ["missing live field", { a: 1 }, {}, false],
    ["nested", { a: { b: [1, 2] } }, { a: { b: [1, 2], c: 3 } }, true],
    ["arrays must have the same length", [1], [1, 2], false],
    [
      "array elements are compared as subsets (server defaults inside)",
      [{ port: 5432 }],
      [{ port: 5432, protocol: "TCP" }],
      true,
    ],
    ["undefined desired fields are ignored", { a: undefined, b: 1 }, { b: 1 }, true],
    ["quantities normalised by the server (0.5 vs 500m)", { cpu: "0.5" }, { cpu: "500m" }, true],
    ["quantities normalised by the server (1024Mi vs 1Gi)", { m: "1024Mi" }, { m: "1Gi" }, true],
    ["different quantities", { m: "1Gi" }, { m: "2Gi" }, false],
    ["number vs numeric string", { replicas: "3" }, { replicas: 3 }, true],
    ["object vs array", { a: {} }, { a: [] }, false],
    ["non-quantity strings", { image: "pg:15" }, { image: "pg:16" }, false],
  ])("%s", (_name, desired, live, expected) => {
    expect(isSubset(desired, live)).toBe(expected);
  });
});

describe("childChange", () => {
  const desired = withAppliedHash({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "x", namespace: "n" },
    data: { a: "1" },
  });

  it.each([
    ["absent", undefined, "create"],
    ["identical", desired, "none"],
    [
      "same intent, server-added fields",
      { ...desired, metadata: { ...desired.metadata, uid: "u" } },
      "none",
    ],
    ["edited by hand", { ...desired, data: { a: "2" } }, "drift"],
    [
      "applied from an older spec",
      {
        ...desired,
        metadata: { ...desired.metadata, annotations: { [ANNOTATION_APPLIED_HASH]: "old" } },
      },
      "update",
    ],
  ] as const)("%s → %s", (_name, live, expected) => {
    expect(childChange(desired, live)).toBe(expected);
  });

  it("sees a field we stopped setting through the hash (a subset check alone cannot)", () => {
    const before = withAppliedHash({
      kind: "ConfigMap",
      metadata: { name: "x" },
      data: { a: "1", b: "2" },
    });
    const after = withAppliedHash({ kind: "ConfigMap", metadata: { name: "x" }, data: { a: "1" } });
    expect(isSubset(after, before)).toBe(false); // hash annotation differs…
    expect(childChange(after, before)).toBe("update");
  });
});

describe("contentHash", () => {
  it("ignores key order and sees value changes", () => {
    expect(contentHash({ a: 1, b: { c: 2, d: 3 } })).toBe(contentHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
  });
});
