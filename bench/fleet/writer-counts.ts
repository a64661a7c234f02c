/** What bench/fleet's background writers count (writers.ts), and how a failure is counted. */

export interface WriterCounts {
  acknowledged: number;
  failed: number;
  /** Failures by what the driver said, the first REASONS_KEPT distinct ones. */
  reasons?: Record<string, number>;
}

/** Distinct failure reasons kept: enough to say what failed, bounded whatever happens. */
export const REASONS_KEPT = 8;

/** Counts one failure under its reason (the message's first line, trimmed to 120 characters). */
export function countFailure(counts: WriterCounts, err: unknown): void {
  counts.failed++;
  const reason = (err instanceof Error ? err.message : String(err)).split("\n")[0].slice(0, 120);
  const reasons = (counts.reasons ??= {});
  const known = Object.hasOwn(reasons, reason);
  if (known || Object.keys(reasons).length < REASONS_KEPT)
    reasons[reason] = (known ? reasons[reason] : 0) + 1;
}
