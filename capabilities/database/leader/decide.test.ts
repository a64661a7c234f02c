import {
  ElectorState,
  LeaseRecord,
  decide,
  holdsLease,
  microTime,
  observe,
  releasedRecord,
} from "./decide";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000 };
const s = (seconds: number): number => T0 + seconds * 1000;

const heldBy = (holder: string, transitions = 0, at = s(0)): LeaseRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: microTime(at),
  renewTime: microTime(at),
  leaseTransitions: transitions,
});

describe("microTime", () => {
  it("has six fractional digits (Kubernetes MicroTime)", () => {
    expect(microTime(T0 + 123)).toBe("2026-11-29T10:00:00.123000Z");
  });
});

describe("observe", () => {
  it("moves observedAt only when the record changes", () => {
    const a = observe({}, heldBy("b"), s(0));
    expect(a.observedAt).toBe(s(0));
    expect(observe(a, heldBy("b"), s(5)).observedAt).toBe(s(0));
    expect(observe(a, heldBy("b", 0, s(2)), s(5)).observedAt).toBe(s(5)); // renewed
    expect(observe(a, undefined, s(6)).observedAt).toBe(s(6)); // deleted
  });
});

describe("decide", () => {
  type Case = [string, LeaseRecord | undefined, number, number, string, Partial<LeaseRecord>];
  // name, current record, observedAt, now, expected action, expected record fields
  it.each<Case>([
    [
      "no lease: create it, holding it",
      undefined,
      s(0),
      s(0),
      "create",
      { holderIdentity: "a", leaseTransitions: 0, leaseDurationSeconds: 15 },
    ],
    [
      "held by us: renew, keeping acquireTime and transitions",
      heldBy("a", 3),
      s(0),
      s(2),
      "renew",
      {
        holderIdentity: "a",
        leaseTransitions: 3,
        acquireTime: microTime(s(0)),
        renewTime: microTime(s(2)),
      },
    ],
    ["held by another, fresh: wait", heldBy("b"), s(0), s(14.9), "wait", {}],
    [
      "held by another, not renewed for the lease duration: take over, counting the transition",
      heldBy("b", 4),
      s(0),
      s(15),
      "takeover",
      { holderIdentity: "a", leaseTransitions: 5, acquireTime: microTime(s(15)) },
    ],
    [
      "released by its holder: take over at once",
      { ...heldBy("b", 1), holderIdentity: "" },
      s(0),
      s(0.5),
      "takeover",
      { holderIdentity: "a", leaseTransitions: 2 },
    ],
    [
      "expiry uses the record's own lease duration",
      { ...heldBy("b"), leaseDurationSeconds: 60 },
      s(0),
      s(30),
      "wait",
      {},
    ],
  ])("%s", (...[, record, observedAt, now, action, fields]) => {
    const state: ElectorState = { observed: record, observedAt };
    const decision = decide(record, state, "a", now, timings);
    expect(decision.action).toBe(action);
    if (decision.action !== "wait") expect(decision.record).toMatchObject(fields);
  });

  it("expiry is measured from when we saw the last change, not from renewTime (clock skew)", () => {
    // The holder's clock is 1 h behind: its renewTime looks ancient, but it keeps renewing.
    let state: ElectorState = {};
    const skewed = (at: number) => heldBy("b", 0, at - 3_600_000);
    state = observe(state, skewed(s(0)), s(0));
    expect(decide(skewed(s(0)), state, "a", s(2), timings).action).toBe("wait");
    state = observe(state, skewed(s(10)), s(10));
    expect(decide(skewed(s(10)), state, "a", s(24), timings).action).toBe("wait");
    expect(decide(skewed(s(10)), state, "a", s(25), timings).action).toBe("takeover");
  });
});

describe("holdsLease", () => {
  it.each([
    [undefined, s(0), false],
    [s(0), s(0), true],
    [s(0), s(9.99), true],
    [s(0), s(10), false], // lost renewal for the renew deadline: step down
  ])("renewed at %p, now %p → %p", (renewedAt, now, expected) => {
    expect(holdsLease({ renewedAt }, now, timings)).toBe(expected);
  });

  it("a leader steps down before any standby can take over", () => {
    // The standby sees the last renewal no earlier than the leader sent it.
    const leaderStops = s(0) + timings.renewDeadlineMs;
    const standbyTakesOver = s(0) + timings.leaseDurationMs;
    expect(leaderStops).toBeLessThan(standbyTakesOver);
  });
});

describe("releasedRecord", () => {
  it("clears the holder and keeps the transitions count", () => {
    expect(releasedRecord(heldBy("a", 2), s(3))).toMatchObject({
      holderIdentity: "",
      leaseTransitions: 2,
      leaseDurationSeconds: 1,
    });
  });
});
