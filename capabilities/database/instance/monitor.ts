/**
 * The instance monitor: probes every instance of every tracked Database over SQL on a fixed
 * interval, keeps the latest answer and the run of failures, and asks for a reconcile when
 * something that matters changed (an instance stopped or started answering, crossed the failure
 * threshold, changed role, timeline, streaming state, synchronous set or pending restarts).
 * Replication progress alone never triggers a reconcile: that would be a storm under load.
 *
 * A probe that got no answer in time counts as a failure only when the silence is the instance's
 * own (timeout-verdict.ts): silence across Databases on a node that still answers, or while the
 * operator's own loop lagged, leaves the run of failures where it was (ADR 0038).
 *
 * Reconcile tells it what to probe (`track`) and reads its view (`view`); the monitor never
 * writes to the API itself.
 */
import { Clock, TimerHandle, systemClock } from "../lib/clock";
import { errorMessage } from "../lib/errors";
import type { LoopLagReader } from "../lib/loop-lag";
import { lagBytes } from "./lsn";
import { isSilence } from "./sql-session";
import { Discount, ProbeOutcome, discountSilence } from "./timeout-verdict";
import type { InstanceProbe, InstanceSql, InstanceTarget } from "./types";

export interface ProbeTarget {
  name: string;
  /** Pod UID: a new pod under the same name starts with a clean record. */
  uid: string;
  /** Where and as whom to probe it (instance/targets.ts). */
  target: InstanceTarget;
  /** The node its pod runs on: silence shared by a node's Databases is the node's. */
  node?: string;
}

export interface ProbeRecord {
  uid: string;
  ok: boolean;
  failures: number;
  probe?: InstanceProbe;
  lastError?: string;
  /** When the current run of failures began. */
  failingSince?: number;
  /** Why the last failure, a silence, was not counted (timeout-verdict.ts). */
  discounted?: string;
}

export interface MonitorOptions {
  /** `retainOnly`, when there: closes what probes keep open for instances no longer tracked. */
  sql: Pick<InstanceSql, "probeInstance"> & {
    retainOnly?(keep: Pick<InstanceTarget, "host" | "port">[]): void;
  };
  intervalMs: number;
  timeoutMs: number;
  failureThreshold: number;
  onChange: (key: string) => void;
  /** The operator's event-loop lag (lib/loop-lag.ts); without it, lag discounts nothing. */
  loopLag?: LoopLagReader;
  /** The node the operator runs on, once known (its own pod's): a node alive by that fact. */
  operatorNode?: () => string | undefined;
  /**
   * A silence not counted against `instance` of Database `key`, and why; `again` when its last
   * failure was a discounted silence too (a log says it once per run).
   */
  onDiscount?: (key: string, instance: string, discount: Discount, again: boolean) => void;
  clock?: Clock;
}

interface Tracked {
  targets: ProbeTarget[];
  records: Map<string, ProbeRecord>;
  inFlight: Set<string>;
  /** spec.readOnly.maxLag: a replica crossing it (or half of it) changes whether it serves. */
  maxLagBytes?: number;
  lagBuckets: Map<string, number>;
}

const sameAddress = (a: Pick<InstanceTarget, "host" | "port">, b: typeof a): boolean =>
  a.host === b.host && a.port === b.port;

/** The fields whose change deserves a reconcile. */
const signature = (r: ProbeRecord, threshold: number): string =>
  JSON.stringify([
    r.uid,
    r.ok,
    r.failures >= threshold,
    r.probe?.inRecovery,
    r.probe?.timeline,
    r.probe?.walReceiverStatus,
    r.probe?.postmasterStartTime,
    r.probe?.pendingRestart,
    r.probe?.standbys.map(s => `${s.name}:${s.state}:${s.syncState}`).sort(),
  ]);

/**
 * Whether a replica's lag moved across maxLag or half of it since the last probe: replication
 * progress alone never wakes reconcile, but leaving or rejoining `<db>-ro` must.
 */
function lagBucketChanged(entry: Tracked, name: string): boolean {
  const max = entry.maxLagBytes;
  const probe = entry.records.get(name)?.probe;
  const primary = [...entry.records.values()].find(r => r.ok && r.probe && !r.probe.inRecovery);
  if (!max || !probe?.inRecovery || !primary?.probe) return false;
  const lag = Number(lagBytes(primary.probe.lsn, probe.lsn));
  const bucket = lag > max ? 2 : lag > max / 2 ? 1 : 0;
  const before = entry.lagBuckets.get(name) ?? 0;
  entry.lagBuckets.set(name, bucket);
  return bucket !== before;
}

export class InstanceMonitor {
  private readonly tracked = new Map<string, Tracked>();
  /** Every Database's recent probe ends, for the verdict on a silence (timeout-verdict.ts). */
  private recent: ProbeOutcome[] = [];
  private prunedAt = 0;
  private readonly clock: Clock;
  private timer?: TimerHandle;

  constructor(private readonly opts: MonitorOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  /** Sets what to probe for a Database (its pods with an IP); starts probing on first use. */
  track(key: string, targets: ProbeTarget[], maxLagBytes?: number): void {
    const entry = this.tracked.get(key) ?? {
      targets: [],
      records: new Map<string, ProbeRecord>(),
      inFlight: new Set<string>(),
      lagBuckets: new Map<string, number>(),
    };
    const dropped = entry.targets.some(
      old => !targets.some(t => sameAddress(t.target, old.target)),
    );
    entry.targets = targets;
    entry.maxLagBytes = maxLagBytes;
    for (const name of [...entry.records.keys()]) {
      const target = targets.find(t => t.name === name);
      if (!target || target.uid !== entry.records.get(name)?.uid) entry.records.delete(name);
    }
    this.tracked.set(key, entry);
    // Every address is looked at only when this Database stopped using one: a pass that tracks
    // the same pods again (nearly every pass) costs nothing across the other Databases.
    if (dropped) this.releaseUntracked();
    this.schedule();
  }

  untrack(key: string): void {
    this.tracked.delete(key);
    this.releaseUntracked();
    if (this.tracked.size === 0) this.stop();
  }

  /** Leadership lost: probe nothing any more (a new leader probes the current pods itself). */
  untrackAll(): void {
    this.tracked.clear();
    this.releaseUntracked();
    this.stop();
  }

  private releaseUntracked(): void {
    const keep = [...this.tracked.values()].flatMap(e => e.targets.map(t => t.target));
    this.opts.sql.retainOnly?.(keep);
  }

  /** The latest record per instance name (only for the pod UID currently tracked). */
  view(key: string): Map<string, ProbeRecord> {
    return new Map(this.tracked.get(key)?.records ?? []);
  }

  stop(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One round over every tracked instance; resolves when all probes of the round settled. */
  async probeAll(): Promise<void> {
    const rounds: Promise<void>[] = [];
    for (const [key, entry] of this.tracked) {
      for (const target of entry.targets) {
        if (entry.inFlight.has(target.name)) continue; // a hung server: one probe at a time
        rounds.push(this.probeOne(key, entry, target));
      }
    }
    await Promise.all(rounds);
  }

  /**
   * A tick every interval starts a probe of each instance not already being probed; it does not
   * wait for them. A frozen server then costs its own timeout per failure, and never delays the
   * probes (and the failure count) of the others.
   */
  private schedule(): void {
    if (this.timer || this.tracked.size === 0) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.probeAll();
      this.schedule();
    }, this.opts.intervalMs);
  }

  private async probeOne(key: string, entry: Tracked, target: ProbeTarget): Promise<void> {
    entry.inFlight.add(target.name);
    const before = entry.records.get(target.name);
    const startedAt = this.clock.now();
    let next: ProbeRecord;
    try {
      next = await this.answer(entry, target);
    } catch (err) {
      const previous = before?.uid === target.uid ? before : undefined;
      next = this.failure(key, previous, target, err, startedAt);
    } finally {
      entry.inFlight.delete(target.name);
    }
    this.note({ key, node: target.node, at: this.clock.now(), answered: next.ok });
    // The Database may have been untracked, or the pod replaced, while the probe ran.
    if (this.tracked.get(key) !== entry) return;
    if (!entry.targets.some(t => t.name === target.name && t.uid === target.uid)) return;
    entry.records.set(target.name, next);
    const threshold = this.opts.failureThreshold;
    const crossed = lagBucketChanged(entry, target.name);
    if (!before || signature(before, threshold) !== signature(next, threshold) || crossed)
      this.opts.onChange(key);
  }

  private async answer(entry: Tracked, target: ProbeTarget): Promise<ProbeRecord> {
    const probe = await this.opts.sql.probeInstance(target.target, this.opts.timeoutMs);
    return { uid: target.uid, ok: true, failures: 0, probe };
  }

  /**
   * One more failure in a row, unless it is a silence the verdict discounts (then the run stays
   * where it was); the last answer is kept (failover compares received LSNs).
   */
  private failure(
    key: string,
    previous: ProbeRecord | undefined,
    target: ProbeTarget,
    err: unknown,
    startedAt: number,
  ): ProbeRecord {
    const now = this.clock.now();
    const failingSince = previous?.failingSince ?? now;
    const discount = isSilence(err)
      ? this.verdict(key, target, startedAt, failingSince)
      : undefined;
    if (discount) this.opts.onDiscount?.(key, target.name, discount, !!previous?.discounted);
    return {
      uid: target.uid,
      ok: false,
      failures: (previous?.failures ?? 0) + (discount ? 0 : 1),
      probe: previous?.probe,
      lastError: errorMessage(err),
      failingSince,
      ...(discount ? { discounted: discount.message } : {}),
    };
  }

  private verdict(
    key: string,
    target: ProbeTarget,
    startedAt: number,
    failingSince: number,
  ): Discount | undefined {
    return discountSilence({
      key,
      node: target.node,
      startedAt,
      now: this.clock.now(),
      timeoutMs: this.opts.timeoutMs,
      failingSince,
      operatorLagMs: this.opts.loopLag?.maxSince(startedAt) ?? 0,
      operatorNode: this.opts.operatorNode?.(),
      recent: this.recent,
      windowMs: this.windowMs,
    });
  }

  /** The span of a run of failures up to the threshold: another Database's silence is looked for there. */
  private get windowMs(): number {
    return this.opts.failureThreshold * this.opts.intervalMs + this.opts.timeoutMs;
  }

  /**
   * Keeps a probe's end for the verdicts of others; once an interval, forgets ends no verdict reads
   * any more (not on every end: a fleet's thousands of ends a second would each copy the list).
   */
  private note(outcome: ProbeOutcome): void {
    if (outcome.at - this.prunedAt >= this.opts.intervalMs) {
      const horizon = outcome.at - Math.max(this.windowMs, this.opts.timeoutMs * 2);
      this.recent = this.recent.filter(o => o.at >= horizon);
      this.prunedAt = outcome.at;
    }
    this.recent.push(outcome);
  }
}
