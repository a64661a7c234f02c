import { MAX_TIMER_MS, systemClock } from "./clock";
import { FakeClock, flushMicrotasks } from "../../../test/unit/fake-clock";

describe("FakeClock", () => {
  it("starts at the given time and moves only when advanced", () => {
    const clock = new FakeClock(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(250);
    expect(clock.now()).toBe(1250);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it("fires due timers in due order, ties in creation order, and reports time at each", () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const at = (name: string) => () => fired.push(`${name}@${clock.now()}`);
    clock.setTimeout(at("c"), 300);
    clock.setTimeout(at("a"), 100);
    clock.setTimeout(at("b1"), 200);
    clock.setTimeout(at("b2"), 200);
    clock.setTimeout(at("late"), 1000);
    clock.advance(300);
    expect(fired).toEqual(["a@100", "b1@200", "b2@200", "c@300"]);
    expect(clock.pending()).toBe(1);
    expect(clock.nextDue()).toBe(1000);
    expect(clock.now()).toBe(300);
  });

  it("fires timers scheduled by callbacks within the same advance", () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const tick = (): void => {
      fired.push(clock.now());
      clock.setTimeout(tick, 100);
    };
    clock.setTimeout(tick, 100);
    clock.advance(350);
    expect(fired).toEqual([100, 200, 300]);
    expect(clock.pending()).toBe(1);
  });

  it.each([
    [0, 0],
    [-50, 0], // negative delays fire at once
    [NaN, 0],
  ])("a %p ms timer fires on advance(0) at the current time", (ms, dueIn) => {
    const clock = new FakeClock(10);
    const fn = jest.fn();
    clock.setTimeout(fn, ms);
    expect(clock.nextDue()).toBe(10 + dueIn);
    clock.advance(0);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("clearTimeout cancels a timer, also from inside another callback", () => {
    const clock = new FakeClock();
    const second = jest.fn();
    const handle = clock.setTimeout(second, 200);
    clock.setTimeout(() => clock.clearTimeout(handle), 100);
    clock.advance(500);
    expect(second).not.toHaveBeenCalled();
    expect(clock.pending()).toBe(0);
  });

  it("advanceAsync lets promise chains started by a timer finish before later timers", async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    clock.setTimeout(() => {
      void (async () => {
        await Promise.resolve();
        await Promise.resolve();
        log.push(`async done@${clock.now()}`);
        clock.setTimeout(() => log.push(`follow-up@${clock.now()}`), 50);
      })();
    }, 100);
    clock.setTimeout(() => log.push(`next@${clock.now()}`), 120);
    await clock.advanceAsync(200);
    expect(log).toEqual(["async done@100", "next@120", "follow-up@150"]);
  });

  it("advanceAsync flushes work queued before it was called", async () => {
    const clock = new FakeClock();
    const log: number[] = [];
    void Promise.resolve().then(() => clock.setTimeout(() => log.push(clock.now()), 10));
    await clock.advanceAsync(10);
    expect(log).toEqual([10]);
  });
});

describe("systemClock", () => {
  it("reads wall-clock time", () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it("fires and cancels real timers (a few ms)", async () => {
    const cancelled = jest.fn();
    const handle = systemClock.setTimeout(cancelled, 1);
    systemClock.clearTimeout(handle);
    await new Promise<void>(resolve => systemClock.setTimeout(resolve, 2));
    await flushMicrotasks();
    expect(cancelled).not.toHaveBeenCalled();
  });

  it("unrefs its timers and clamps delays Node would turn into 1 ms", () => {
    const spy = jest.spyOn(global, "setTimeout");
    try {
      const handle = systemClock.setTimeout(() => undefined, 2 ** 40);
      expect(spy).toHaveBeenLastCalledWith(expect.any(Function), MAX_TIMER_MS);
      expect((handle as unknown as NodeJS.Timeout).hasRef()).toBe(false);
      systemClock.clearTimeout(handle);
    } finally {
      spy.mockRestore();
    }
  });
});
