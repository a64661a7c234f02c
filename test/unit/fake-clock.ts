/** A virtual clock for unit tests of the work queue, leader election and the monitor. */
import { Clock, TimerHandle, clampDelay } from "../../capabilities/database/lib/clock";

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
