import { FakeClock, flushMicrotasks } from "../../../test/unit/fake-clock";
import { ReconcileHandler, ReconcileOutcome, WorkQueue, WorkQueueOptions } from "./workqueue";

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const deferred = (): Deferred => {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

/**
 * A queue on a fake clock whose handler records every run (key, start time) and tracks how many
 * runs are active, overall and per key. `behaviour` decides what each run does.
 */
function setup(
  behaviour: ReconcileHandler = async () => undefined,
  options: Partial<WorkQueueOptions> = {},
) {
  const clock = new FakeClock();
  const outcomes: ReconcileOutcome[] = [];
  const runs: { key: string; at: number }[] = [];
  const active = new Map<string, number>();
  let activeTotal = 0;
  let maxActive = 0;
  let maxActivePerKey = 0;
  const handler: ReconcileHandler = async key => {
    runs.push({ key, at: clock.now() });
    active.set(key, (active.get(key) ?? 0) + 1);
    activeTotal++;
    maxActive = Math.max(maxActive, activeTotal);
    maxActivePerKey = Math.max(maxActivePerKey, active.get(key) ?? 0);
    try {
      return await behaviour(key);
    } finally {
      active.set(key, (active.get(key) ?? 1) - 1);
      activeTotal--;
    }
  };
  const queue = new WorkQueue({
    handler,
    concurrency: 2,
    backoff: { baseMs: 1000, capMs: 8000 },
    clock,
    onResult: o => outcomes.push(o),
    ...options,
  });
  return {
    clock,
    queue,
    outcomes,
    runs,
    runsOf: (key: string) => runs.filter(r => r.key === key).map(r => r.at),
    maxActive: () => maxActive,
    maxActivePerKey: () => maxActivePerKey,
  };
}

/** A handler that takes `ms` of fake time. */
const slow =
  (clock: FakeClock, ms: number): ReconcileHandler =>
  () =>
    new Promise<void>(resolve => clock.setTimeout(resolve, ms));

const failing = (): Promise<void> => Promise.reject(new Error("boom"));

describe("WorkQueue: de-duplication and ordering", () => {
  it("runs a burst of adds of one key once", async () => {
    const t = setup();
    for (let i = 0; i < 10; i++) t.queue.add("a");
    expect(t.runs).toHaveLength(0); // dispatch never happens on the caller's stack
    await flushMicrotasks();
    expect(t.runsOf("a")).toEqual([0]);
  });

  it("queues a key waiting for a worker only once (10 adds while waiting → 1 run)", async () => {
    const gate = deferred();
    const t = setup(key => (key === "busy" ? gate.promise : Promise.resolve()), {
      concurrency: 1,
    });
    t.queue.add("busy");
    await flushMicrotasks();
    for (let i = 0; i < 10; i++) t.queue.add("a");
    expect(t.queue.len()).toBe(1);
    expect(t.queue.inFlight()).toBe(1);
    gate.resolve();
    await flushMicrotasks();
    expect(t.runsOf("a")).toHaveLength(1);
    expect(t.queue.len()).toBe(0);
  });

  it("starts ready keys in FIFO order", async () => {
    const t = setup(undefined, { concurrency: 1 });
    ["c", "a", "b", "a", "c"].forEach(k => t.queue.add(k));
    await t.clock.advanceAsync(0);
    expect(t.runs.map(r => r.key)).toEqual(["c", "a", "b"]);
  });
});

describe("WorkQueue: per-key serialisation", () => {
  it("runs a key added during its run exactly once more, after the run", async () => {
    const gates = [deferred(), deferred()];
    let call = 0;
    const t = setup(() => gates[call++].promise);
    t.queue.add("a");
    await flushMicrotasks();
    for (let i = 0; i < 5; i++) t.queue.add("a");
    await flushMicrotasks();
    expect(t.runs).toHaveLength(1); // not concurrently
    expect(t.queue.inFlight()).toBe(1);
    expect(t.queue.len()).toBe(0); // marked dirty, not waiting for another worker
    gates[0].resolve();
    await flushMicrotasks();
    expect(t.runs).toHaveLength(2);
    gates[1].resolve();
    await flushMicrotasks();
    expect(t.runs).toHaveLength(2);
    expect(t.maxActivePerKey()).toBe(1);
    expect(t.outcomes.map(o => o.result)).toEqual(["success", "success"]);
  });

  it("never runs one key twice at once under events, resync and retries", async () => {
    let n = 0;
    const t = setup(async () => {
      await new Promise<void>(resolve => t.clock.setTimeout(resolve, 300));
      if (++n % 3 === 0) throw new Error("flaky");
    });
    t.queue.startResync(() => ["a", "b"], 500);
    for (let ms = 0; ms < 20_000; ms += 100) {
      t.queue.add(ms % 200 === 0 ? "a" : "b");
      await t.clock.advanceAsync(100);
    }
    expect(t.runs.length).toBeGreaterThan(20);
    expect(t.maxActivePerKey()).toBe(1);
    expect(t.maxActive()).toBeLessThanOrEqual(2);
    const stopped = t.queue.shutdown();
    await t.clock.advanceAsync(300); // in-flight handlers wait on the fake clock
    await stopped;
  });
});

describe("WorkQueue: concurrency", () => {
  it.each([1, 3, 5])("never runs more than %p handlers at once and finishes all", async c => {
    const t = setup(key => slow(t.clock, 100)(key), { concurrency: c });
    const clock = t.clock;
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    keys.forEach(k => t.queue.add(k));
    await clock.advanceAsync(0);
    expect(t.queue.inFlight()).toBe(c);
    expect(t.queue.len()).toBe(12 - c);
    await clock.advanceAsync(100 * Math.ceil(12 / c));
    expect(t.runs.map(r => r.key)).toEqual(keys);
    expect(t.maxActive()).toBe(c);
    expect(t.outcomes).toHaveLength(12);
    expect(t.queue.inFlight()).toBe(0);
    expect(t.queue.len()).toBe(0);
  });

  it.each([0, -1, 1.5, NaN])("rejects concurrency %p", c => {
    expect(() => setup(undefined, { concurrency: c })).toThrow(RangeError);
  });
});

describe("WorkQueue: failures and backoff", () => {
  it("retries after 1 s, 2 s, 4 s, 8 s, then stays at the cap", async () => {
    const t = setup(failing);
    t.queue.add("a");
    await t.clock.advanceAsync(0);
    await t.clock.advanceAsync(999);
    expect(t.runsOf("a")).toEqual([0]); // not before the delay
    await t.clock.advanceAsync(40_000 - 999);
    expect(t.runsOf("a")).toEqual([0, 1000, 3000, 7000, 15_000, 23_000, 31_000, 39_000]);
    expect(t.outcomes.map(o => o.retryInMs)).toEqual([
      1000, 2000, 4000, 8000, 8000, 8000, 8000, 8000,
    ]);
    expect(t.outcomes.map(o => o.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(t.queue.attempts("a")).toBe(8);
    expect(t.queue.delayed()).toBe(1);
  });

  it("applies jitter from the injected source", async () => {
    const t = setup(failing, { jitter: () => 0 });
    t.queue.add("a");
    await t.clock.advanceAsync(3000);
    expect(t.runsOf("a")).toEqual([0, 900, 2700]);
  });

  it("retries until success: 3 failures then success → 4 runs, count reset", async () => {
    let calls = 0;
    const counts: number[] = [];
    const t = setup(async () => {
      counts.push(t.queue.attempts("a"));
      if (++calls <= 3) throw new Error(`failure ${calls}`);
    });
    t.queue.add("a");
    await t.clock.advanceAsync(60_000);
    expect(t.runsOf("a")).toEqual([0, 1000, 3000, 7000]);
    expect(counts).toEqual([0, 1, 2, 3]);
    expect(t.outcomes.map(o => [o.result, o.attempt])).toEqual([
      ["error", 1],
      ["error", 2],
      ["error", 3],
      ["success", 4],
    ]);
    expect(t.queue.attempts("a")).toBe(0);
    expect(t.queue.delayed()).toBe(0);
    // The next failure starts from the base delay again.
    calls = 0;
    t.queue.add("a");
    await t.clock.advanceAsync(1000);
    expect(t.runsOf("a")).toEqual([0, 1000, 3000, 7000, 60_000, 61_000]);
  });

  it("keeps failures of different keys apart", async () => {
    const t = setup(key => (key === "bad" ? failing() : Promise.resolve()));
    t.queue.add("bad");
    t.queue.add("good");
    await t.clock.advanceAsync(3000);
    expect(t.runsOf("bad")).toEqual([0, 1000, 3000]);
    expect(t.runsOf("good")).toEqual([0]);
    expect(t.queue.attempts("good")).toBe(0);
  });

  it("never loses errors: synchronous throws and non-Error rejections", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const clock = new FakeClock();
      const thrown = { status: 500, data: "x" }; // KFC throws plain objects
      const outcomes: ReconcileOutcome[] = [];
      const queue = new WorkQueue({
        // Not async on purpose: a handler that throws before returning a promise.
        handler: (key: string) => {
          if (key === "sync") throw new Error("sync");
          return Promise.reject(thrown);
        },
        concurrency: 2,
        backoff: { baseMs: 10, capMs: 10 },
        clock,
        onResult: o => outcomes.push(o),
      });
      queue.add("sync");
      queue.add("obj");
      await clock.advanceAsync(25);
      expect(outcomes.map(o => [o.key, o.result, o.error])).toEqual([
        ["sync", "error", new Error("sync")],
        ["obj", "error", thrown],
        ["sync", "error", new Error("sync")],
        ["obj", "error", thrown],
        ["sync", "error", new Error("sync")],
        ["obj", "error", thrown],
      ]);
      await queue.shutdown();
      await flushMicrotasks();
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("keeps working when the onResult observer throws", async () => {
    const t = setup(failing, {
      onResult: () => {
        throw new Error("observer broke");
      },
    });
    t.queue.add("a");
    await t.clock.advanceAsync(3000);
    expect(t.runsOf("a")).toEqual([0, 1000, 3000]);
  });
});

describe("WorkQueue: adds during backoff (see the WorkQueue comment)", () => {
  it("does not let adds bypass the backoff timer", async () => {
    let calls = 0;
    const t = setup(async () => {
      if (++calls <= 2) throw new Error("boom");
    });
    t.queue.add("a");
    await t.clock.advanceAsync(0);
    for (let i = 0; i < 10; i++) t.queue.add("a"); // e.g. events from our own status write
    t.queue.addAfter("a", 10); // shorter than the backoff: absorbed too
    await t.clock.advanceAsync(999);
    expect(t.runsOf("a")).toEqual([0]);
    await t.clock.advanceAsync(1);
    expect(t.runsOf("a")).toEqual([0, 1000]); // exactly one retry
    await t.clock.advanceAsync(10_000);
    expect(t.runsOf("a")).toEqual([0, 1000, 3000]);
  });

  it("folds an add made during a failing run into the retry (no hot loop)", async () => {
    const t = setup(async key => {
      t.queue.add(key); // the status write's watch event arrives while we still run
      await Promise.resolve();
      throw new Error("boom");
    });
    t.queue.add("a");
    await t.clock.advanceAsync(7000);
    expect(t.runsOf("a")).toEqual([0, 1000, 3000, 7000]);
  });

  it("reruns at once for an add made during a successful run", async () => {
    let calls = 0;
    const t = setup(async key => {
      if (++calls === 1) t.queue.add(key);
    });
    t.queue.add("a");
    await t.clock.advanceAsync(0);
    expect(t.runsOf("a")).toEqual([0, 0]);
  });

  it("forget ends the backoff: the next add runs at once", async () => {
    const t = setup(failing);
    t.queue.add("a");
    await t.clock.advanceAsync(0);
    t.queue.forget("a");
    t.queue.add("a");
    await t.clock.advanceAsync(0);
    expect(t.runsOf("a")).toEqual([0, 0]);
  });
});

describe("WorkQueue: requeue-after and delayed adds", () => {
  it("requeues after requeueAfterMs and reports it", async () => {
    let calls = 0;
    const t = setup(async () => (++calls === 1 ? { requeueAfterMs: 5000 } : undefined));
    t.queue.add("a");
    await t.clock.advanceAsync(4999);
    expect(t.runsOf("a")).toEqual([0]);
    expect(t.queue.delayed()).toBe(1);
    await t.clock.advanceAsync(20_000);
    expect(t.runsOf("a")).toEqual([0, 5000]);
    expect(t.outcomes.map(o => [o.result, o.retryInMs])).toEqual([
      ["requeue", 5000],
      ["success", undefined],
    ]);
  });

  it.each([0, -5, NaN, Infinity])("ignores requeueAfterMs %p (no hot loop)", async ms => {
    const t = setup(async () => ({ requeueAfterMs: ms }));
    t.queue.add("a");
    await t.clock.advanceAsync(10_000);
    expect(t.runsOf("a")).toEqual([0]);
    expect(t.outcomes[0].result).toBe("success");
  });

  it("an event-triggered add runs at once and supersedes the pending requeue", async () => {
    let calls = 0;
    const t = setup(async () => (++calls === 1 ? { requeueAfterMs: 5000 } : undefined));
    t.queue.add("a");
    await t.clock.advanceAsync(2000);
    t.queue.add("a");
    await t.clock.advanceAsync(10_000);
    expect(t.runsOf("a")).toEqual([0, 2000]);
    expect(t.queue.delayed()).toBe(0);
  });

  it.each([
    [[5000, 2000], [2000]],
    [[2000, 5000], [2000]],
    [[3000, 3000], [3000]],
  ])("addAfter %p keeps the earliest due time → runs at %p", async (delays, expected) => {
    const t = setup();
    delays.forEach(ms => t.queue.addAfter("a", ms));
    await t.clock.advanceAsync(10_000);
    expect(t.runsOf("a")).toEqual(expected);
  });

  it("addAfter with a non-positive delay is a plain add", async () => {
    const t = setup();
    t.queue.addAfter("a", 0);
    await flushMicrotasks();
    expect(t.runsOf("a")).toEqual([0]);
  });

  it("addAfter for a key already waiting for a worker adds nothing", async () => {
    const t = setup();
    t.queue.add("a");
    t.queue.addAfter("a", 1000);
    expect(t.queue.delayed()).toBe(0);
    await t.clock.advanceAsync(5000);
    expect(t.runsOf("a")).toEqual([0]);
  });
});

describe("WorkQueue: forget", () => {
  it("cancels pending retries and resets the failure count", async () => {
    const t = setup(failing);
    t.queue.add("a");
    await t.clock.advanceAsync(1000);
    expect(t.queue.attempts("a")).toBe(2);
    t.queue.forget("a");
    expect(t.queue.attempts("a")).toBe(0);
    expect(t.queue.delayed()).toBe(0);
    expect(t.clock.pending()).toBe(0);
    await t.clock.advanceAsync(60_000);
    expect(t.runsOf("a")).toEqual([0, 1000]);
  });

  it("cancels a pending requeue", async () => {
    const t = setup(async () => ({ requeueAfterMs: 1000 }));
    t.queue.add("a");
    await t.clock.advanceAsync(0);
    t.queue.forget("a");
    await t.clock.advanceAsync(5000);
    expect(t.runsOf("a")).toEqual([0]);
  });
});

describe("WorkQueue: resync", () => {
  it("adds every listed key once per period, starting one period in", async () => {
    const t = setup();
    t.queue.startResync(async () => ["a", "b"], 10_000);
    await t.clock.advanceAsync(9999);
    expect(t.runs).toHaveLength(0);
    await t.clock.advanceAsync(1);
    expect(t.runs).toEqual([
      { key: "a", at: 10_000 },
      { key: "b", at: 10_000 },
    ]);
    await t.clock.advanceAsync(20_000);
    expect(t.runsOf("a")).toEqual([10_000, 20_000, 30_000]);
    expect(t.runsOf("b")).toEqual([10_000, 20_000, 30_000]);
  });

  it("survives a failing listing and reports it", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const t = setup(undefined, { onResyncError: e => errors.push(e) });
    t.queue.startResync(() => {
      if (++calls === 1) throw new Error("list failed");
      return ["a"];
    }, 1000);
    await t.clock.advanceAsync(2000);
    expect(errors).toEqual([new Error("list failed")]);
    expect(t.runsOf("a")).toEqual([2000]);
  });

  it("does not bypass backoff for failing keys", async () => {
    const t = setup(failing, { backoff: { baseMs: 5000, capMs: 5000 } });
    t.queue.add("a");
    await t.clock.advanceAsync(0);
    t.queue.startResync(() => ["a"], 1000);
    await t.clock.advanceAsync(9999);
    expect(t.runsOf("a")).toEqual([0, 5000]);
  });

  it("a second start replaces the first; stopResync stops it", async () => {
    const t = setup();
    t.queue.startResync(() => ["old"], 1000);
    t.queue.startResync(() => ["new"], 3000);
    await t.clock.advanceAsync(6000);
    expect(t.runsOf("old")).toEqual([]);
    expect(t.runsOf("new")).toEqual([3000, 6000]);
    t.queue.stopResync();
    expect(t.clock.pending()).toBe(0);
    await t.clock.advanceAsync(10_000);
    expect(t.runsOf("new")).toEqual([3000, 6000]);
  });

  it("a listing still in flight when restarted does not revive the old schedule", async () => {
    const listing = deferred();
    const t = setup();
    t.queue.startResync(async () => {
      await listing.promise;
      return ["old"];
    }, 1000);
    await t.clock.advanceAsync(1000); // old listing starts and hangs
    t.queue.startResync(() => ["new"], 5000); // first listing at 6000
    listing.resolve();
    await t.clock.advanceAsync(5000);
    expect(t.clock.pending()).toBe(1); // only the new schedule
    expect(t.runsOf("new")).toEqual([6000]);
    expect(t.runsOf("old")).toEqual([1000]); // its keys are still added, once
  });

  it.each([0, -1, NaN])("rejects a period of %p", ms => {
    const t = setup();
    expect(() => t.queue.startResync(() => [], ms)).toThrow(RangeError);
  });
});

describe("WorkQueue: shutdown", () => {
  it("waits for in-flight handlers, drops queued keys and clears every timer", async () => {
    const gate = deferred();
    const t = setup(key => (key === "slow" ? gate.promise : failing()), { concurrency: 1 });
    t.queue.add("fail");
    await t.clock.advanceAsync(0); // "fail" is now in backoff (a timer)
    t.queue.add("slow");
    t.queue.addAfter("later", 5000);
    t.queue.startResync(() => ["x"], 1000);
    await flushMicrotasks();
    t.queue.add("queued");
    expect(t.queue.inFlight()).toBe(1);
    expect(t.queue.len()).toBe(1);

    let done = false;
    const stopped = t.queue.shutdown().then(() => (done = true));
    expect(t.queue.shutdown()).toBe(t.queue.shutdown()); // idempotent
    expect(t.clock.pending()).toBe(0);
    expect(t.queue.len()).toBe(0);
    await flushMicrotasks();
    expect(done).toBe(false); // "slow" still runs

    gate.resolve();
    await stopped;
    expect(done).toBe(true);
    expect(t.queue.inFlight()).toBe(0);
    expect(t.outcomes.map(o => [o.key, o.result])).toEqual([
      ["fail", "error"],
      ["slow", "success"],
    ]);

    t.queue.add("after");
    t.queue.addAfter("after", 10);
    t.queue.startResync(() => ["after"], 10);
    await t.clock.advanceAsync(10_000);
    expect(t.runs.map(r => r.key)).toEqual(["fail", "slow"]);
  });

  it("schedules no retry for a handler that fails during shutdown", async () => {
    const gate = deferred();
    const t = setup(() => gate.promise);
    t.queue.add("a");
    await flushMicrotasks();
    const stopped = t.queue.shutdown();
    gate.reject(new Error("interrupted"));
    await stopped;
    expect(t.outcomes[0]).toMatchObject({ key: "a", result: "error" });
    expect(t.outcomes[0].retryInMs).toBeUndefined();
    expect(t.clock.pending()).toBe(0);
  });

  it("resolves at once when idle", async () => {
    await expect(setup().queue.shutdown()).resolves.toBeUndefined();
  });
});

describe("WorkQueue: onResult", () => {
  it("reports key, result, duration, attempt and error", async () => {
    const err = new Error("boom");
    let calls = 0;
    const t = setup(async () => {
      await new Promise<void>(resolve => t.clock.setTimeout(resolve, 250));
      if (++calls === 1) throw err;
      return { requeueAfterMs: 60_000 };
    });
    t.queue.add("ns/db");
    await t.clock.advanceAsync(1500);
    expect(t.outcomes).toEqual([
      { key: "ns/db", result: "error", durationMs: 250, attempt: 1, error: err, retryInMs: 1000 },
      { key: "ns/db", result: "requeue", durationMs: 250, attempt: 2, retryInMs: 60_000 },
    ]);
  });
});
