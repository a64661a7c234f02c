/**
 * How late the operator's own event loop runs: a timer every `sampleMs` notes how much later than
 * asked it fired. A probe that timed out while the loop lagged says more about the operator than
 * about the server (instance/timeout-verdict.ts). Samples older than `keepMs` are dropped.
 */
import { Clock, TimerHandle, systemClock } from "./clock";

export interface LoopLagReader {
  /** The longest lag (ms) noted since `since` (a lag still running counts up to now). */
  maxSince(since: number): number;
}

export class LoopLag implements LoopLagReader {
  private readonly samples: { at: number; lagMs: number }[] = [];
  private timer?: TimerHandle;
  private expectedAt = 0;

  constructor(
    private readonly sampleMs = 100,
    private readonly keepMs = 30_000,
    private readonly clock: Clock = systemClock,
  ) {}

  start(): void {
    if (this.timer) return;
    this.expectedAt = this.clock.now() + this.sampleMs;
    this.timer = this.clock.setTimeout(() => this.tick(), this.sampleMs);
  }

  stop(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  maxSince(since: number): number {
    const now = this.clock.now();
    // The tick that has not come yet is late by this much already.
    const pending = this.timer ? Math.max(0, now - this.expectedAt) : 0;
    return this.samples
      .filter(s => s.at >= since)
      .reduce((max, s) => Math.max(max, s.lagMs), pending);
  }

  private tick(): void {
    const now = this.clock.now();
    this.samples.push({ at: now, lagMs: Math.max(0, now - this.expectedAt) });
    while (this.samples.length > 0 && this.samples[0].at < now - this.keepMs) this.samples.shift();
    this.expectedAt = now + this.sampleMs;
    this.timer = this.clock.setTimeout(() => this.tick(), this.sampleMs);
  }
}
