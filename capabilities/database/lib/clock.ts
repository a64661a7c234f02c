/**
 * Time as a dependency: the work queue, resync and leader election read the time and set timers
 * only through a `Clock`, so tests drive them with a fake clock (test/unit/fake-clock.ts) instead
 * of sleeping.
 */

declare const timerBrand: unique symbol;

/** Opaque handle of a timer; only the clock that created it can cancel it. */
export type TimerHandle = { readonly [timerBrand]: true };

export interface Clock {
  /** Milliseconds since the epoch (wall clock for `systemClock`, virtual for a fake one). */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Node turns delays above 2^31-1 ms into 1 ms (a silent hot loop): clamp instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const clampDelay = (ms: number): number =>
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
