/**
 * Every bench's renderer and its figures' check, by the name its results file has
 * (bench/results/<name>.json) and its npm script (npm run bench:<name>).
 */
import { admissionProblems, renderAdmission } from "./admission";
import { backupProblems, renderBackup } from "./backup";
import { compareProblems, renderCompare } from "./compare";
import { BenchResult, parseResult } from "./envelope";
import { failoverProblems, renderFailover } from "./failover";
import { fleetProblems, renderFleet } from "./fleet";
import { fuzzProblems, renderFuzz } from "./fuzz";
import { probeProblems, renderProbe } from "./probe";
import { renderScale, scaleProblems } from "./scale";

interface Bench<R> {
  render: (r: R) => string;
  /** Why the figures are unusable (a smoke run fails on any); none when they are fine. */
  problems: (r: R) => string[];
}

// Each entry pairs functions over the same result type; the record erases it for lookup by name.
const bench = <R>(b: Bench<R>) => b as unknown as Bench<BenchResult>;

export const BENCHES = {
  failover: bench({ render: renderFailover, problems: failoverProblems }),
  backup: bench({ render: renderBackup, problems: backupProblems }),
  probe: bench({ render: renderProbe, problems: probeProblems }),
  scale: bench({ render: renderScale, problems: scaleProblems }),
  admission: bench({ render: renderAdmission, problems: admissionProblems }),
  fuzz: bench({ render: renderFuzz, problems: fuzzProblems }),
  compare: bench({ render: renderCompare, problems: compareProblems }),
  fleet: bench({ render: renderFleet, problems: fleetProblems }),
};

export type BenchName = keyof typeof BENCHES;

export const BENCH_NAMES = Object.keys(BENCHES) as BenchName[];

/**
 * A result file's text rendered as its docs section; throws when the JSON is malformed, its
 * figures unusable, or the renderer cannot read them (a field missing).
 */
export function renderResultText(name: BenchName, text: string, file: string): string {
  const result = parseResult(text, name, file);
  let rendered: string;
  try {
    rendered = BENCHES[name].render(result);
  } catch (err) {
    throw new Error(`${file}: cannot be rendered: ${(err as Error).message}`);
  }
  const problems = BENCHES[name].problems(result);
  if (problems.length > 0) throw new Error(`${file}: ${problems.join("; ")}`);
  return rendered;
}
