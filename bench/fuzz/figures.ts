/** A mode's tally as the figures bench/results/fuzz.json keeps (bench/report/fuzz.ts). */
import { percentile } from "../lib/apiclient";
import type { FuzzGroup, FuzzMode } from "../report/fuzz";
import type { Mode } from "./args";
import { Groups, Tally } from "./tally";

/** Enough to name what was found and replay it; the console shows the rest. */
const GROUPS_KEPT = 5;
const CASES_KEPT = 3;

const top = (g: Groups): FuzzGroup[] =>
  g
    .sorted()
    .slice(0, GROUPS_KEPT)
    .map(([key, { count, examples }]) => ({
      key,
      count,
      cases: examples.slice(0, CASES_KEPT).map(e => e.index),
    }));

export function modeFigures(mode: Mode, t: Tally, seconds: number): FuzzMode {
  const n = t.latencies.length;
  return {
    mode,
    cases: n,
    casesPerSecond: n / seconds,
    p50Ms: n ? percentile(t.latencies, 0.5) : null,
    p99Ms: n ? percentile(t.latencies, 0.99) : null,
    admitted: t.counts.admitted,
    denied: t.counts.denied,
    failures: t.counts.failure,
    admittedInvalid: t.admittedInvalidCases,
    admittedInvalidSchemaOnly: t.admittedInvalidSchemaOnly,
    falseRefusals: t.falseRefusals.total,
    unknown: t.verdicts.unknown,
    groups: {
      failures: top(t.failures),
      admittedInvalid: top(t.admittedInvalid),
      falseRefusals: top(t.falseRefusals),
    },
  };
}
