/**
 * Leader election, the loop: every retry period, read the Lease, let `decide` say what to do, and
 * write it with optimistic locking. Callbacks tell the controller when this process starts and
 * stops leading; `isLeader()` re-checks the renew deadline on every call, so a process whose
 * event loop stalled past its deadline answers false even before its loop notices.
 */
import { Clock, TimerHandle } from "../lib/clock";
import { errorMessage } from "../lib/errors";
import {
  ElectorState,
  ElectionTimings,
  decide,
  holdsLease,
  observe,
  releasedRecord,
} from "./decide";
import { LeaseClient } from "./lease-client";

export interface ElectorOptions {
  client: LeaseClient;
  clock: Clock;
  identity: string;
  timings: ElectionTimings & { retryPeriodMs: number };
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
  /** Failed attempts and transitions, for logs. */
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export class LeaderElector {
  private state: ElectorState = {};
  private leading = false;
  private timer?: TimerHandle;
  private stopped = false;
  private attempt?: Promise<void>;

  constructor(private readonly options: ElectorOptions) {}

  /** True while this process holds the lease and its last renewal is within the deadline. */
  isLeader(): boolean {
    return this.leading && holdsLease(this.state, this.options.clock.now(), this.options.timings);
  }

  /** Starts trying to acquire (at once), then keeps renewing or retrying every retry period. */
  start(): void {
    if (this.stopped || this.timer !== undefined || this.attempt) return;
    this.schedule(0);
  }

  /**
   * Stops the loop; a leader gives the lease up (holder cleared) so a standby takes over at its
   * next attempt rather than after the lease duration.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.attempt;
    const wasLeading = this.isLeader();
    this.stepDown();
    if (wasLeading) await this.release();
  }

  /** One acquire-or-renew attempt; exposed for tests. Never rejects. */
  async tryOnce(): Promise<void> {
    const { client, clock, identity, timings } = this.options;
    const started = clock.now();
    try {
      const current = await client.get();
      this.state = observe(this.state, current?.record, clock.now());
      const decision = decide(current?.record, this.state, identity, clock.now(), timings);
      if (decision.action === "wait") {
        // Someone else holds a live lease: if we thought we led, we did not.
        if (this.leading) this.stepDown();
        return;
      }
      if (decision.action === "create") await client.create(decision.record);
      else await client.update(decision.record, current!.resourceVersion);
      this.state = { ...observe(this.state, decision.record, clock.now()), renewedAt: started };
      this.startLeading(decision.action);
    } catch (err) {
      // A conflict means another candidate wrote first: the next read shows who.
      this.options.log?.warn(
        { identity, error: errorMessage(err) },
        "Lease acquire/renew attempt failed",
      );
    }
    if (this.leading && !this.isLeader()) this.stepDown();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      this.attempt = this.tryOnce().finally(() => {
        this.attempt = undefined;
        this.schedule(this.options.timings.retryPeriodMs);
      });
    }, ms);
  }

  private startLeading(action: string): void {
    const wasLeading = this.leading;
    this.leading = true;
    if (wasLeading) return;
    this.options.log?.info(
      {
        identity: this.options.identity,
        action,
        transitions: this.state.observed?.leaseTransitions,
      },
      "Became leader",
    );
    this.options.onStartedLeading?.();
  }

  private stepDown(): void {
    if (!this.leading) return;
    this.leading = false;
    this.state = { ...this.state, renewedAt: undefined };
    this.options.log?.warn({ identity: this.options.identity }, "Stopped leading");
    this.options.onStoppedLeading?.();
  }

  private async release(): Promise<void> {
    try {
      const current = await this.options.client.get();
      if (current?.record.holderIdentity !== this.options.identity) return;
      await this.options.client.update(
        releasedRecord(current.record, this.options.clock.now()),
        current.resourceVersion,
      );
    } catch (err) {
      this.options.log?.warn({ error: errorMessage(err) }, "Could not release the lease");
    }
  }
}
