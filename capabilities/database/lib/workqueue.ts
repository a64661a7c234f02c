/**
 * The controller work queue. Pepr 1.1.4 queues every watch event (no de-duplication) and drops a
 * reconcile that throws (no retry), so the module owns this queue instead: watch events only
 * `add(key)`; one place runs the handler with de-duplication, per-key serialisation, a
 * concurrency bound, retries with capped exponential backoff, requeue-after and periodic resync.
 * The shape follows client-go's rate-limited work queue (dirty/processing sets), with one
 * deliberate difference about adds during backoff, explained on `WorkQueue`.
 */
import { backoffDelay, BackoffPolicy } from "./backoff";
import { Clock, systemClock, TimerHandle } from "./clock";

/** What a handler may return. `requeueAfterMs` (positive, finite) asks for another run later. */
export interface ReconcileResult {
  requeueAfterMs?: number;
}

export type ReconcileHandler = (key: string) => Promise<ReconcileResult | void>;

export interface ReconcileOutcome {
  key: string;
  /** `requeue`: success that asked for another run after `retryInMs`. */
  result: "success" | "error" | "requeue";
  durationMs: number;
  /** 1 for the first run after a success (or ever); n for the n-th consecutive try. */
  attempt: number;
  error?: unknown;
  /** Delay until the next run: the backoff after an error, the requested delay for a requeue. */
  retryInMs?: number;
}

export interface WorkQueueOptions {
  handler: ReconcileHandler;
  /** Handlers running at once (controller-runtime's MaxConcurrentReconciles). */
  concurrency: number;
  backoff: BackoffPolicy;
  clock?: Clock;
  /** Random source in [0, 1) for backoff jitter (pass Math.random in production). None: exact. */
  jitter?: () => number;
  /** Called after every run, for metrics, logs and status. Its exceptions are swallowed. */
  onResult?: (outcome: ReconcileOutcome) => void;
  /** Called when the resync's `listKeys` fails; the next period tries again. */
  onResyncError?: (err: unknown) => void;
}

interface Delay {
  due: number;
  timer: TimerHandle;
  /** A retry after a failure: adds are absorbed until it fires (see `WorkQueue`). */
  backoff: boolean;
}

type Completion = Pick<ReconcileOutcome, "result" | "error" | "retryInMs">;

/**
 * Work queue of string keys (e.g. "namespace/name").
 *
 * - De-duplication: a key waiting for a worker is queued once, however often it is added.
 * - Serialisation: a key is never handled twice at once; adding a key that is being handled
 *   marks it dirty and it runs exactly once more after the current run.
 * - FIFO among ready keys, at most `concurrency` handlers at once.
 * - A handler that throws or rejects is retried after backoffDelay(consecutive failures); a
 *   success resets the count. `requeueAfterMs` schedules another run (addAfter).
 *
 * Adds during backoff (deliberate; client-go would run an event-triggered add at once): while a
 * key waits for a retry after a failure, `add` and `addAfter` do not bypass the backoff timer;
 * the retry covers them. Likewise, an add that arrives while a run is in progress is folded into
 * that run's retry when the run fails. Reason: a failing reconcile typically writes status (a
 * condition, an event) and that write comes back as a watch event; if events bypassed backoff,
 * every failure would trigger an immediate rerun — a hot loop against the API server. The cost:
 * a real spec change made during backoff waits for the retry (at most `backoff.capMs`), or for
 * `forget(key)`, which ends the backoff.
 *
 * A plain `add` supersedes a pending non-backoff delay (requeue-after): the run it causes
 * decides again whether a later run is needed.
 */
export class WorkQueue {
  private readonly handler: ReconcileHandler;
  private readonly concurrency: number;
  private readonly backoff: BackoffPolicy;
  private readonly clock: Clock;
  private readonly jitter?: () => number;
  private readonly onResult?: (outcome: ReconcileOutcome) => void;
  private readonly onResyncError?: (err: unknown) => void;

  /** Keys waiting for a worker, oldest first. Never contains a key that is processing. */
  private readonly ready: string[] = [];
  /** Keys that need a run: those in `ready`, plus processing keys added again meanwhile. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delays = new Map<string, Delay>();
  private readonly failures = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private pumpScheduled = false;
  private resyncTimer?: TimerHandle;
  /** Bumped by every start/stop so a listing still in flight cannot reschedule a stale resync. */
  private resyncGeneration = 0;
  private stopping = false;
  private stopped?: Promise<void>;

  constructor(options: WorkQueueOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
      throw new RangeError(`concurrency must be a positive integer, got ${options.concurrency}`);
    this.handler = options.handler;
    this.concurrency = options.concurrency;
    this.backoff = options.backoff;
    this.clock = options.clock ?? systemClock;
    this.jitter = options.jitter;
    this.onResult = options.onResult;
    this.onResyncError = options.onResyncError;
  }

  /** Queues `key` for a run (de-duplicated; absorbed while the key is in backoff). */
  add(key: string): void {
    if (this.stopping) return;
    const delay = this.delays.get(key);
    if (delay?.backoff) return;
    if (delay) this.cancelDelay(key);
    this.enqueue(key);
  }

  /** Queues `key` after `ms`; if a delayed add is already pending, the earliest one stays. */
  addAfter(key: string, ms: number): void {
    if (this.stopping) return;
    if (!(ms > 0)) return this.add(key);
    // A run is already coming (it decides again), or a retry in backoff absorbs this one.
    if (this.dirty.has(key)) return;
    const existing = this.delays.get(key);
    const due = this.clock.now() + ms;
    if (existing && (existing.backoff || existing.due <= due)) return;
    this.cancelDelay(key);
    this.schedule(key, ms, false);
  }

  /**
   * Drops the key's pending retry or delay and its failure count (e.g. the object was deleted).
   * A run already queued or in progress still happens.
   */
  forget(key: string): void {
    this.cancelDelay(key);
    this.failures.delete(key);
  }

  /** Consecutive failures of `key` (0 after a success). */
  attempts(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Keys waiting for a worker (queue depth). */
  len(): number {
    return this.ready.length;
  }

  /** Handlers running now. */
  inFlight(): number {
    return this.processing.size;
  }

  /** Keys waiting for a timer (backoff retries and requeue-after). */
  delayed(): number {
    return this.delays.size;
  }

  /**
   * Every `periodMs`, adds every key `listKeys` returns: the drift check that Pepr's relist
   * (a diff against its cache) does not provide. The first listing happens one period after the
   * start (the watch delivers every object at startup). Replaces a previous resync.
   */
  startResync(listKeys: () => string[] | Promise<string[]>, periodMs: number): void {
    if (this.stopping) return;
    if (!(periodMs > 0)) throw new RangeError(`resync period must be positive, got ${periodMs}`);
    this.stopResync();
    const generation = this.resyncGeneration;
    const tick = async (): Promise<void> => {
      try {
        for (const key of await listKeys()) this.add(key);
      } catch (err) {
        this.safely(() => this.onResyncError?.(err));
      }
      if (this.stopping || generation !== this.resyncGeneration) return;
      this.resyncTimer = this.clock.setTimeout(() => void tick(), periodMs);
    };
    this.resyncTimer = this.clock.setTimeout(() => void tick(), periodMs);
  }

  stopResync(): void {
    this.resyncGeneration++;
    if (this.resyncTimer !== undefined) this.clock.clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
  }

  /**
   * Stops accepting keys, drops queued keys and timers, and resolves once in-flight handlers
   * have finished (their results are still reported). Idempotent.
   */
  shutdown(): Promise<void> {
    if (!this.stopped) {
      this.stopping = true;
      this.stopResync();
      for (const key of [...this.delays.keys()]) this.cancelDelay(key);
      this.ready.length = 0;
      this.dirty.clear();
      this.stopped = this.drain();
    }
    return this.stopped;
  }

  private async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private enqueue(key: string): void {
    if (this.stopping || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return; // runs again when the current run ends
    this.ready.push(key);
    this.schedulePump();
  }

  /**
   * Dispatch happens in a microtask, not inside `add`: handlers never run on the caller's stack
   * (a watch callback), and a burst of adds in one tick coalesces into one run.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => this.pump());
  }

  private pump(): void {
    this.pumpScheduled = false;
    while (!this.stopping && this.processing.size < this.concurrency && this.ready.length > 0) {
      const key = this.ready.shift() as string;
      this.dirty.delete(key);
      this.processing.add(key);
      const run = this.run(key);
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
    }
  }

  /** Runs the handler once; never rejects. */
  private async run(key: string): Promise<void> {
    const attempt = this.attempts(key) + 1;
    const started = this.clock.now();
    let result: ReconcileResult | void = undefined;
    let failure: { error: unknown } | undefined;
    try {
      result = await this.handler(key);
    } catch (error) {
      failure = { error };
    }
    const durationMs = this.clock.now() - started;
    const completion = failure
      ? this.failed(key, attempt, failure.error)
      : this.succeeded(key, result);
    this.safely(() => this.onResult?.({ key, durationMs, attempt, ...completion }));
    this.pump();
  }

  private succeeded(key: string, result: ReconcileResult | void): Completion {
    this.processing.delete(key);
    this.failures.delete(key);
    const after = result?.requeueAfterMs;
    const requeue = typeof after === "number" && Number.isFinite(after) && after > 0;
    if (this.dirty.has(key))
      this.ready.push(key); // added meanwhile: that run decides again
    else if (requeue) this.addAfter(key, after);
    return requeue ? { result: "requeue", retryInMs: after } : { result: "success" };
  }

  private failed(key: string, attempt: number, error: unknown): Completion {
    this.processing.delete(key);
    this.failures.set(key, attempt);
    // Adds made during the failed run are covered by the retry: see the class comment.
    this.dirty.delete(key);
    if (this.stopping) return { result: "error", error };
    const retryInMs = backoffDelay(attempt, this.backoff, this.jitter);
    this.cancelDelay(key);
    this.schedule(key, retryInMs, true);
    return { result: "error", error, retryInMs };
  }

  private schedule(key: string, ms: number, backoff: boolean): void {
    const timer = this.clock.setTimeout(() => {
      this.delays.delete(key);
      this.enqueue(key);
    }, ms);
    this.delays.set(key, { due: this.clock.now() + ms, timer, backoff });
  }

  private cancelDelay(key: string): void {
    const delay = this.delays.get(key);
    if (!delay) return;
    this.clock.clearTimeout(delay.timer);
    this.delays.delete(key);
  }

  /** Observer callbacks must not break the queue (nor become unhandled rejections). */
  private safely(fn: () => void): void {
    try {
      fn();
    } catch {
      // Nothing sensible to do with an observer's own failure.
    }
  }
}
