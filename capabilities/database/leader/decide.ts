/**
 * Leader election, the pure part: given the Lease as last read and what this candidate remembers,
 * decide whether to create, renew, take over or wait. No I/O and no clock: the elector
 * (elector.ts) reads the Lease, calls these functions with the time, and writes what they say.
 *
 * Expiry is judged on the local clock, as client-go does: a candidate remembers when it last saw
 * the record change (`observedAt`) and considers the lease expired `leaseDuration` after that,
 * whatever `renewTime` says — so clock skew between machines does not matter, only clock rate.
 * The leader, for its part, stops acting `renewDeadline` after its last successful renewal
 * (measured from before the request was sent). With renewDeadline < leaseDuration, the old
 * leader has stopped before any standby can consider the lease expired.
 */

/** The spec of a coordination.k8s.io/v1 Lease (times are RFC 3339 with microseconds). */
export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface ElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
}

/** What a candidate remembers between attempts. */
export interface ElectorState {
  /** The record as last read. */
  observed?: LeaseRecord;
  /** Local time (ms) when the record was last seen to change. */
  observedAt?: number;
  /** Local time (ms), taken before the request, of our last successful acquire or renew. */
  renewedAt?: number;
}

export type Decision =
  | { action: "create"; record: LeaseRecord }
  | { action: "renew"; record: LeaseRecord }
  | { action: "takeover"; record: LeaseRecord }
  | { action: "wait"; holder: string; expiresAt: number };

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits (Go parses no fewer). */
export const microTime = (ms: number): string => new Date(ms).toISOString().replace("Z", "000Z");

const RECORD_FIELDS = [
  "holderIdentity",
  "renewTime",
  "acquireTime",
  "leaseTransitions",
  "leaseDurationSeconds",
] as const;

const sameRecord = (a: LeaseRecord | undefined, b: LeaseRecord | undefined): boolean =>
  (a === undefined) === (b === undefined) && RECORD_FIELDS.every(f => a?.[f] === b?.[f]);

/** Records a read of the Lease: `observedAt` moves only when the record changed. */
export function observe(
  state: ElectorState,
  record: LeaseRecord | undefined,
  now: number,
): ElectorState {
  if (state.observedAt !== undefined && sameRecord(state.observed, record)) return state;
  return { ...state, observed: record, observedAt: now };
}

const durationMsOf = (record: LeaseRecord, timings: ElectionTimings): number =>
  record.leaseDurationSeconds && record.leaseDurationSeconds > 0
    ? record.leaseDurationSeconds * 1000
    : timings.leaseDurationMs;

/**
 * The next step for candidate `identity`, after `observe` recorded the current read
 * (`record` undefined: no Lease exists).
 */
export function decide(
  record: LeaseRecord | undefined,
  state: ElectorState,
  identity: string,
  now: number,
  timings: ElectionTimings,
): Decision {
  const durationS = Math.round(timings.leaseDurationMs / 1000);
  const stamp = microTime(now);
  if (!record) {
    return {
      action: "create",
      record: {
        holderIdentity: identity,
        leaseDurationSeconds: durationS,
        acquireTime: stamp,
        renewTime: stamp,
        leaseTransitions: 0,
      },
    };
  }
  if (record.holderIdentity === identity) {
    return {
      action: "renew",
      record: { ...record, leaseDurationSeconds: durationS, renewTime: stamp },
    };
  }
  const holder = record.holderIdentity ?? "";
  const expiresAt = (state.observedAt ?? now) + durationMsOf(record, timings);
  if (holder !== "" && now < expiresAt) return { action: "wait", holder, expiresAt };
  // Expired, or released by its holder: take it, and count the transition so that observers
  // (and tests) can tell how often leadership changed hands.
  return {
    action: "takeover",
    record: {
      holderIdentity: identity,
      leaseDurationSeconds: durationS,
      acquireTime: stamp,
      renewTime: stamp,
      leaseTransitions: (record.leaseTransitions ?? 0) + 1,
    },
  };
}

/** True while the last successful renewal is younger than the renew deadline. */
export const holdsLease = (state: ElectorState, now: number, timings: ElectionTimings): boolean =>
  state.renewedAt !== undefined && now - state.renewedAt < timings.renewDeadlineMs;

/**
 * The record a leader writes when it stops on purpose: no holder, so a standby takes over at its
 * next attempt instead of waiting for the lease to expire.
 */
export const releasedRecord = (record: LeaseRecord, now: number): LeaseRecord => ({
  ...record,
  holderIdentity: "",
  leaseDurationSeconds: 1,
  renewTime: microTime(now),
});
