import { failureLogGate, listingTally, watchSettings } from "./informers";

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

describe("watchSettings", () => {
  it("gives up after Pepr's 5 failed reconnects cluster-wide (the process exits and restarts)", () => {
    expect(watchSettings(false).resyncFailureMax).toBe(5);
  });

  it("never gives up in a namespace (one served may be deleted, its Role with it)", () => {
    const settings = watchSettings(true);
    expect("resyncFailureMax" in settings && settings.resyncFailureMax === undefined).toBe(true);
    expect(settings.resyncDelaySec).toBe(watchSettings(false).resyncDelaySec);
  });
});

describe("failureLogGate", () => {
  it("logs the 1st, 2nd, 4th, 8th failure since the last list, and again from 1 after one", () => {
    const gate = failureLogGate();
    const logged = Array.from({ length: 9 }, (_, i) => (gate("failed") ? i + 1 : 0)).filter(
      Boolean,
    );
    expect(logged).toEqual([1, 2, 4, 8]);
    expect(gate("listed")).toBe(false);
    expect(gate("failed")).toBe(true);
  });
});
