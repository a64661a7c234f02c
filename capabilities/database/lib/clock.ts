/**
 * Time as a dependency: the work queue, resync and leader election read the time and set timers
 * only through a `Clock`, so tests drive them with `FakeClock` instead of sleeping.
 */

declare const timerBrand: unique symbol;

/** Opaque handle of a timer; only the clock that created it can cancel it. */
export type TimerHandle = { readonly [timerBrand]: true };

export interface Clock {
  /** Milliseconds since the epoch (wall clock for `systemClock`, virtual for `FakeClock`). */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Node turns delays above 2^31-1 ms into 1 ms (a silent hot loop): clamp instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const clampDelay = (ms: number): number =>
  Number.isNaN(ms) ? 0 : Math.min(MAX_TIMER_MS, Math.max(0, ms));

/**
 * The real clock. Timers are unref'd: a pending retry or resync must not keep a process (or a
 * jest worker) alive on its own; the watcher stays up because of its watches and HTTP server.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = setTimeout(fn, clampDelay(ms));
    timer.unref();
    // The Node Timeout object is the handle; the brand only stops other code from forging one.
    return timer as unknown as TimerHandle;
  },
  clearTimeout(handle: TimerHandle): void {
    clearTimeout(handle as unknown as NodeJS.Timeout);
  },
};

/**
 * Resolves after every queued microtask (promise callbacks, including ones queued by those
 * callbacks) has run: setImmediate fires only once the microtask queue is empty.
 */
export const flushMicrotasks = (): Promise<void> =>
  new Promise<void>(resolve => setImmediate(resolve));

interface FakeTimer {
  id: number;
  due: number;
  fn: () => void;
}

/** A virtual clock for tests: time moves only when the test calls `advance`/`advanceAsync`. */
export class FakeClock implements Clock {
  private current: number;
  private nextId = 0;
  private readonly timers = new Map<number, FakeTimer>();

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.nextId;
    this.timers.set(id, { id, due: this.current + clampDelay(ms), fn });
    return { id } as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete((handle as unknown as { id: number }).id);
  }

  /** Number of timers not yet fired nor cleared. */
  pending(): number {
    return this.timers.size;
  }

  /** Due time of the next timer, if any. */
  nextDue(): number | undefined {
    return this.earliest(Infinity)?.due;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order of due time (then creation). Timers
   * that callbacks schedule are fired too when they fall within the window. Synchronous: promise
   * callbacks started by the timers run only after this returns (see `advanceAsync`).
   */
  advance(ms: number): void {
    const target = this.target(ms);
    for (let t = this.earliest(target); t; t = this.earliest(target)) this.fire(t);
    this.current = target;
  }

  /**
   * Like `advance`, but lets pending promise callbacks run before the first timer and after each
   * one, so async code reacting to a timer (e.g. a handler that schedules a retry) completes
   * before later timers are considered.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.target(ms);
    await flushMicrotasks();
    for (let t = this.earliest(target); t; t = this.earliest(target)) {
      this.fire(t);
      await flushMicrotasks();
    }
    this.current = target;
  }

  private target(ms: number): number {
    if (!(ms >= 0)) throw new RangeError(`FakeClock cannot move backwards (${ms} ms)`);
    return this.current + ms;
  }

  private fire(timer: FakeTimer): void {
    this.timers.delete(timer.id);
    this.current = timer.due;
    timer.fn();
  }

  /** Earliest timer due at or before `limit`; ties go to the one created first (lower id). */
  private earliest(limit: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers.values()) {
      if (t.due <= limit && (!best || t.due < best.due || (t.due === best.due && t.id < best.id)))
        best = t;
    }
    return best;
  }
}
