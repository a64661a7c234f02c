/** Retry delays after failed reconciles: exponential, capped, optionally jittered. */

export interface BackoffPolicy {
  /** Delay before the first retry. */
  baseMs: number;
  /** No delay exceeds this, jitter included. */
  capMs: number;
}

/** Jitter spreads retries over ±10 % so objects failing together do not retry in lockstep. */
export const JITTER_FRACTION = 0.1;

/** Beyond 2^52 the product only overflows; any sane cap is far below base * 2^52. */
const MAX_EXPONENT = 52;

/**
 * Delay before retry number `attempt` (1 = after the first failure): base * 2^(attempt-1), capped.
 *
 * `jitter` is a random source in [0, 1) (e.g. Math.random; injected so tests are deterministic);
 * it scales the delay by a factor in [0.9, 1.1). The cap is applied again after jitter so it is
 * a hard upper bound: at the cap, jitter only shortens. Returns whole milliseconds.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  jitter?: () => number,
): number {
  const n = Number.isNaN(attempt) ? 1 : Math.max(1, Math.floor(attempt));
  const base = Math.max(0, policy.baseMs);
  const cap = Math.max(0, policy.capMs);
  const raw = Math.min(cap, base * 2 ** Math.min(n - 1, MAX_EXPONENT));
  if (!jitter) return Math.round(raw);
  const r = jitter();
  // A broken source (NaN, out of range) must not produce NaN or negative delays.
  const unit = Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 0.5;
  const factor = 1 - JITTER_FRACTION + 2 * JITTER_FRACTION * unit;
  return Math.round(Math.min(cap, raw * factor));
}
