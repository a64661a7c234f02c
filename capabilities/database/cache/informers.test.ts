import { listingTally } from "./informers";

describe("listingTally: a kind is synced once it has listed everywhere it is watched", () => {
  it("cluster-wide: at its one watch's first list", () => {
    const listed = listingTally([]);
    expect(listed("Secret", undefined)).toBe(true);
  });

  it("namespaced: only once every namespace's watch has listed, kind by kind", () => {
    const listed = listingTally(["shop", "billing"]);
    expect(listed("Secret", "shop")).toBe(false);
    expect(listed("Pod", "billing")).toBe(false);
    // A reconnect of the same namespace is not another namespace.
    expect(listed("Secret", "shop")).toBe(false);
    expect(listed("Secret", "billing")).toBe(true);
    expect(listed("Pod", "shop")).toBe(true);
  });
});
