/** The figures of a mode's run, printed with a bounded number of groups and examples. */
import { percentile } from "../lib/apiclient";
import { fmt } from "../lib/process";
import { Example, Groups, Tally } from "./tally";

const GROUPS_SHOWN = 25;

export interface RunInfo {
  mode: string;
  seed: number;
  from: number;
  cases: number;
  concurrency: number;
  seconds: number;
}

const line = (s: string): void => console.log(s);

function example(e: Example): string {
  const parts = [`  case ${e.index} (${e.base}): ${e.changes.join(" | ").slice(0, 300)}`];
  if (e.message) parts.push(`      answer: ${e.message.replace(/\s+/g, " ").slice(0, 300)}`);
  if (e.oracle) parts.push(`      oracle: ${e.oracle.slice(0, 300)}`);
  return parts.join("\n");
}

function section(title: string, groups: Groups): void {
  if (groups.total === 0) return line(`\n--- ${title}: none`);
  const sorted = groups.sorted();
  line(`\n--- ${title}: ${groups.total} in ${sorted.length} group(s)`);
  for (const [key, g] of sorted.slice(0, GROUPS_SHOWN)) {
    line(`* ${key}: ${g.count}`);
    g.examples.forEach(e => line(example(e)));
  }
  if (sorted.length > GROUPS_SHOWN) line(`… ${sorted.length - GROUPS_SHOWN} more group(s)`);
}

export function printTally(t: Tally, run: RunInfo): void {
  const n = t.latencies.length;
  line(
    `\n=== ${run.mode}: ${n} cases (seed ${run.seed}, cases ${run.from}..${run.from + run.cases - 1}), concurrency ${run.concurrency} ===`,
  );
  line(
    `elapsed ${fmt(run.seconds)} s, ${fmt(n / run.seconds)} cases/s, latency p50 ${fmt(percentile(t.latencies, 0.5))} ms / p99 ${fmt(percentile(t.latencies, 0.99))} ms / max ${fmt(t.latencies.reduce((m, v) => Math.max(m, v), 0))} ms`,
  );
  line(
    `outcomes: admitted ${t.counts.admitted}, denied cleanly ${t.counts.denied}, robustness failures ${t.counts.failure}`,
  );
  line(
    `oracle:   valid ${t.verdicts.valid}, invalid ${t.verdicts.invalid}, unknown ${t.verdicts.unknown}`,
  );
  line(
    `agree:    valid and admitted ${t.agree.admittedValid}, invalid and denied ${t.agree.deniedInvalid}`,
  );
  line(
    `disagree: admitted but invalid ${t.admittedInvalidCases} (of which schema/CEL rules only: ${t.admittedInvalidSchemaOnly}), false refusals ${t.falseRefusals.total}`,
  );
  line(
    `unknown:  admitted ${t.unknownOutcomes.admitted}, denied ${t.unknownOutcomes.denied}; denied invalid naming none of the oracle's fields: ${t.unnamed.total}`,
  );
  section("robustness failures", t.failures);
  section("admitted but invalid, by field the oracle faults (source)", t.admittedInvalid);
  section("false refusals (oracle: valid), by message", t.falseRefusals);
  section("oracle unknowns, by reason", t.unknowns);
  section("denied, but naming none of the oracle's fields (informational)", t.unnamed);
}
