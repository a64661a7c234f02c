import { ProbeOutcome, SLOW_NODE_HOLD_MS, SilentProbe, discountSilence } from "./timeout-verdict";

const NOW = 100_000;

/** orders-0 on node-a went silent: its probe began 1.5 s ago, its first failure. */
const silent = (over: Partial<SilentProbe> = {}): SilentProbe => ({
  key: "team/orders",
  node: "node-a",
  startedAt: NOW - 1500,
  now: NOW,
  timeoutMs: 1500,
  failingSince: NOW,
  operatorLagMs: 0,
  recent: [],
  windowMs: 4500,
  ...over,
});

const out = (key: string, node: string, ago: number, answered: boolean): ProbeOutcome => ({
  key,
  node,
  at: NOW - ago,
  answered,
});

describe("discountSilence", () => {
  it.each<[string, Partial<SilentProbe>, string | undefined]>([
    ["alone on its node: counts", {}, undefined],
    [
      "another Database silent on the node, one answered meanwhile: slow node",
      {
        recent: [
          out("team/billing", "node-a", 800, false),
          out("team/billing", "node-a", 200, true),
        ],
      },
      "slowNode",
    ],
    [
      "another Database silent, nothing on the node answered since the probe began: counts (dead node)",
      {
        recent: [
          out("team/billing", "node-a", 800, false),
          out("team/billing", "node-a", 2000, true),
        ],
      },
      undefined,
    ],
    [
      "only its own Database's instances silent: counts (one Database's trouble)",
      {
        recent: [out("team/orders", "node-a", 800, false), out("team/ledger", "node-a", 100, true)],
      },
      undefined,
    ],
    [
      "the other silence is on another node: counts",
      {
        recent: [
          out("team/billing", "node-b", 800, false),
          out("team/billing", "node-a", 100, true),
        ],
      },
      undefined,
    ],
    [
      "the other silence is older than the window: counts",
      {
        recent: [
          out("team/billing", "node-a", 6000, false),
          out("team/ledger", "node-a", 100, true),
        ],
      },
      undefined,
    ],
    [
      "node unknown: only the operator's lag can discount",
      { node: undefined, recent: [out("team/billing", "node-a", 800, false)] },
      undefined,
    ],
    [
      "the operator lagged a third of the timeout: discounted",
      { operatorLagMs: 500 },
      "operatorLag",
    ],
    ["the operator lagged less: counts", { operatorLagMs: 499 }, undefined],
    [
      "silent for the whole hold: counts whatever the node does",
      {
        failingSince: NOW - SLOW_NODE_HOLD_MS,
        operatorLagMs: 1000,
        recent: [
          out("team/billing", "node-a", 800, false),
          out("team/billing", "node-a", 100, true),
        ],
      },
      undefined,
    ],
  ])("%s", (_, over, reason) => {
    expect(discountSilence(silent(over))?.reason).toBe(reason);
  });

  it("says which node and how many Databases", () => {
    const d = discountSilence(
      silent({
        recent: [
          out("team/billing", "node-a", 800, false),
          out("team/ledger", "node-a", 300, false),
          out("team/ledger", "node-a", 100, true),
        ],
      }),
    );
    expect(d?.message).toBe(
      "instances of 3 Databases on node node-a went silent while others there answered: the node is slow",
    );
  });
});
