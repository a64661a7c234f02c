import { DELETION_COST_ANNOTATION, deletionCostPatch, ownPod } from "./deletion-cost";

describe("deletionCostPatch", () => {
  it.each<[boolean, string | null]>([
    [true, "1000"],
    [false, null], // a merge patch's null removes the annotation
  ])("leading %s: the annotation is %s", (leading, value) => {
    expect(deletionCostPatch(leading)).toEqual({
      metadata: { annotations: { [DELETION_COST_ANNOTATION]: value } },
    });
  });
});

describe("ownPod", () => {
  it.each<[string, Record<string, string>, string | undefined, object | undefined]>([
    [
      "in a pod",
      { HOSTNAME: "pepr-pgkeeper-watcher-7d-x" },
      "pepr-system\n",
      {
        namespace: "pepr-system",
        name: "pepr-pgkeeper-watcher-7d-x",
      },
    ],
    ["on a developer's machine (no namespace file)", { HOSTNAME: "laptop" }, undefined, undefined],
    ["no HOSTNAME", {}, "pepr-system", undefined],
    ["an empty namespace file", { HOSTNAME: "p" }, " ", undefined],
  ])("%s", (_, env, file, expected) => {
    expect(ownPod(env, () => file)).toEqual(expected);
  });
});
