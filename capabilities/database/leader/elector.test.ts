import { FakeClock } from "../../../test/unit/fake-clock";
import { LeaseRecord } from "./decide";
import { LeaderElector } from "./elector";
import { LeaseClient, ObservedLease } from "./lease-client";

/** One Lease in memory with the apiserver's optimistic locking; calls can be made to fail. */
class FakeLeases {
  lease?: ObservedLease;
  private version = 0;
  down = false;
  writes = 0;

  client(): LeaseClient {
    const fail = () => {
      if (this.down) throw { status: 503, data: { message: "apiserver down" } };
    };
    return {
      get: async () => {
        fail();
        return (
          this.lease && {
            record: { ...this.lease.record },
            resourceVersion: this.lease.resourceVersion,
          }
        );
      },
      create: async (record: LeaseRecord) => {
        fail();
        if (this.lease) throw { status: 409, data: { reason: "AlreadyExists" } };
        this.put(record);
      },
      update: async (record: LeaseRecord, rv: string) => {
        fail();
        if (this.lease?.resourceVersion !== rv) throw { status: 409, data: { reason: "Conflict" } };
        this.put(record);
      },
    };
  }

  private put(record: LeaseRecord): void {
    this.writes++;
    this.lease = { record: { ...record }, resourceVersion: String(++this.version) };
  }
}

/** A client that fails every call while `cut()` says so (a dead process or a partition). */
const severable = (api: LeaseClient, cut: () => boolean): LeaseClient => {
  const guard = <T>(call: () => Promise<T>): Promise<T> =>
    cut() ? Promise.reject({ status: 503 }) : call();
  return {
    get: () => guard(() => api.get()),
    create: r => guard(() => api.create(r)),
    update: (r, v) => guard(() => api.update(r, v)),
  };
};

const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

function candidate(name: string, leases: FakeLeases, clock: FakeClock, api = leases.client()) {
  const events: string[] = [];
  const elector = new LeaderElector({
    client: api,
    clock,
    identity: name,
    timings,
    onStartedLeading: () => events.push("started"),
    onStoppedLeading: () => events.push("stopped"),
  });
  return { elector, events };
}

describe("LeaderElector", () => {
  it("acquires a missing lease, renews it every retry period, and a standby waits", async () => {
    const clock = new FakeClock(Date.parse("2026-11-29T10:00:00Z"));
    const leases = new FakeLeases();
    const a = candidate("a", leases, clock);
    a.elector.start();
    await clock.advanceAsync(0);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(["started"]);
    expect(leases.lease?.record).toMatchObject({ holderIdentity: "a", leaseTransitions: 0 });

    const b = candidate("b", leases, clock);
    b.elector.start();
    await clock.advanceAsync(60_000);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.events).toEqual([]);
    expect(leases.lease?.record.holderIdentity).toBe("a");
    // One create, then one renewal per retry period.
    expect(leases.writes).toBe(1 + 60_000 / timings.retryPeriodMs);
    await a.elector.stop();
    await b.elector.stop();
  });

  it("a standby takes over once the leader stops renewing, within the lease duration + a retry period", async () => {
    const clock = new FakeClock(0);
    const leases = new FakeLeases();
    let killed = false;
    const a = candidate(
      "a",
      leases,
      clock,
      severable(leases.client(), () => killed),
    );
    const b = candidate("b", leases, clock);
    a.elector.start();
    await clock.advanceAsync(0);
    b.elector.start();
    await clock.advanceAsync(10_000);

    // kill -9: nothing from a reaches the API any more; nothing is released.
    const killedAt = clock.now();
    killed = true;
    let tookOverAt: number | undefined;
    for (let t = 0; t < 30_000 && tookOverAt === undefined; t += 500) {
      await clock.advanceAsync(500);
      if (b.elector.isLeader()) tookOverAt = clock.now();
    }
    expect(tookOverAt).toBeDefined();
    const delay = tookOverAt! - killedAt;
    expect(delay).toBeGreaterThanOrEqual(timings.leaseDurationMs - timings.retryPeriodMs);
    expect(delay).toBeLessThanOrEqual(timings.leaseDurationMs + 2 * timings.retryPeriodMs);
    expect(leases.lease?.record).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    expect(b.events).toEqual(["started"]);
    await b.elector.stop();
  });

  it("never are two leaders at once (checked every 100 ms while the leader pauses and resumes)", async () => {
    const clock = new FakeClock(0);
    const leases = new FakeLeases();
    // The leader's calls fail for 20 s (network partition), then succeed again.
    let partitioned = false;
    const a = candidate(
      "a",
      leases,
      clock,
      severable(leases.client(), () => partitioned),
    );
    const b = candidate("b", leases, clock);
    a.elector.start();
    await clock.advanceAsync(0);
    b.elector.start();
    await clock.advanceAsync(4_000);
    partitioned = true;
    for (let t = 0; t < 40_000; t += 100) {
      if (t === 20_000) partitioned = false;
      await clock.advanceAsync(100);
      expect(a.elector.isLeader() && b.elector.isLeader()).toBe(false);
    }
    // a lost its lease (stepped down after the renew deadline) and b has led since.
    expect(a.events).toEqual(["started", "stopped"]);
    expect(b.elector.isLeader()).toBe(true);
    await a.elector.stop();
    await b.elector.stop();
  });

  it("a lost renewal makes the leader step down after the renew deadline, not before", async () => {
    const clock = new FakeClock(0);
    const leases = new FakeLeases();
    const a = candidate("a", leases, clock);
    a.elector.start();
    await clock.advanceAsync(0);
    leases.down = true;
    await clock.advanceAsync(9_000);
    expect(a.elector.isLeader()).toBe(true);
    await clock.advanceAsync(1_000);
    expect(a.elector.isLeader()).toBe(false);
    await clock.advanceAsync(1_000); // the loop notices and tells the controller
    expect(a.events).toEqual(["started", "stopped"]);
    leases.down = false;
    await clock.advanceAsync(2_000); // still the holder on the API: it renews and leads again
    expect(a.events).toEqual(["started", "stopped", "started"]);
    await a.elector.stop();
  });

  it("a standby that never led stops without touching the lease", async () => {
    const clock = new FakeClock(0);
    const leases = new FakeLeases();
    const b = candidate("b", leases, clock);
    leases.lease = {
      record: { holderIdentity: "x", leaseDurationSeconds: 15 },
      resourceVersion: "7",
    };
    b.elector.start();
    await clock.advanceAsync(4_000);
    await b.elector.stop();
    expect(leases.lease.record.holderIdentity).toBe("x");
    expect(b.events).toEqual([]);
  });

  it("a graceful stop releases the lease so the standby takes over at its next attempt", async () => {
    const clock = new FakeClock(0);
    const leases = new FakeLeases();
    const a = candidate("a", leases, clock);
    const b = candidate("b", leases, clock);
    a.elector.start();
    await clock.advanceAsync(0);
    b.elector.start();
    await clock.advanceAsync(5_000);
    await a.elector.stop();
    expect(leases.lease?.record.holderIdentity).toBe("");
    expect(a.events).toEqual(["started", "stopped"]);
    await clock.advanceAsync(timings.retryPeriodMs);
    expect(b.elector.isLeader()).toBe(true);
    expect(leases.lease?.record).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
    await b.elector.stop();
  });

  it("two candidates racing to create: exactly one wins", async () => {
    const clock = new FakeClock(0);
    const leases = new FakeLeases();
    const a = candidate("a", leases, clock);
    const b = candidate("b", leases, clock);
    a.elector.start();
    b.elector.start();
    await clock.advanceAsync(0);
    await clock.advanceAsync(10_000);
    expect([a.elector.isLeader(), b.elector.isLeader()].filter(Boolean)).toHaveLength(1);
    await a.elector.stop();
    await b.elector.stop();
  });
});
