import { Clock, TimerHandle } from "./clock";
import { LoopLag } from "./loop-lag";

/** A clock whose one timer fires only when the test says, however late that is. */
function manualClock() {
  let now = 0;
  let pending: { fn: () => void } | undefined;
  const clock: Clock = {
    now: () => now,
    setTimeout: fn => {
      pending = { fn };
      return pending as unknown as TimerHandle;
    },
    clearTimeout: () => (pending = undefined),
  };
  /** Moves time to `at` and fires the timer there. */
  const fireAt = (at: number) => {
    now = at;
    const timer = pending;
    pending = undefined;
    timer?.fn();
  };
  const setNow = (at: number) => (now = at);
  return { clock, fireAt, setNow };
}

describe("LoopLag", () => {
  it("notes how late each tick fired, and reads the longest since a time", () => {
    const { clock, fireAt } = manualClock();
    const lag = new LoopLag(100, 30_000, clock);
    lag.start();
    fireAt(100); // on time
    fireAt(900); // expected at 200: 700 ms late
    fireAt(1000); // on time
    expect(lag.maxSince(0)).toBe(700);
    expect(lag.maxSince(950)).toBe(0);
  });

  it("counts a tick still waiting: a loop stalled right now lags already", () => {
    const { clock, fireAt, setNow } = manualClock();
    const lag = new LoopLag(100, 30_000, clock);
    lag.start();
    fireAt(100);
    setNow(1300); // the next tick was due at 200
    expect(lag.maxSince(1000)).toBe(1100);
  });

  it("forgets samples older than it keeps, and nothing lags once stopped", () => {
    const { clock, fireAt } = manualClock();
    const lag = new LoopLag(100, 1000, clock);
    lag.start();
    fireAt(900); // 800 late
    for (let at = 1000; at <= 3000; at += 100) fireAt(at);
    expect(lag.maxSince(0)).toBe(0);
    lag.stop();
    expect(lag.maxSince(0)).toBe(0);
  });
});
