/**
 * bench/compare's results (bench/compare/run.ts writes them): pgkeeper's watcher and the
 * controller-runtime baseline (../shared/bench/baseline-go) on the same apiserver, the same N,
 * one after the other, and pgkeeper's figures as ratios of the baseline's.
 */
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { NONE, count, fixed, mib, seconds, times } from "./format";
import { columns, table } from "./table";

export interface CompareParameters {
  sizes: number[];
  workers: number;
  idleSeconds: number;
}

/** One implementation's figures at one N. */
export interface CompareSide {
  /** Until every Database had status.observedGeneration = metadata.generation. */
  convergedSeconds: number | null;
  /** Operator CPU (user + system) from the first create until then. */
  cpuSeconds: number | null;
  /** VmHWM of the operator process at the end of the run. */
  peakRssMiB: number | null;
  /** The operator's requests per Database until converged, by verb (Leases and Events apart). */
  requestsPerDatabase: Record<string, number>;
  /** The same by "verb resource" (absent in results before 2026-12-06). */
  requestsByVerbResource?: Record<string, number>;
  /** The idle window after convergence: writes besides Lease renewals, and reads. */
  idle: {
    writes: number;
    leaseWrites: number;
    gets: number;
    lists: number;
    /** Every request of the window by "verb resource" (absent before 2026-12-06). */
    byVerbResource?: Record<string, number>;
  };
  /**
   * From convergence until the number of pods and the operator's writes had both held still for
   * 5 s (the controller-manager creates the pods at its own pace, and each new pod is labelled):
   * null if that did not happen within max(2 min, 0.6 s per Database). Absent before 2026-12-06.
   */
  settledSeconds?: number | null;
  /** The operator's writes in that time. */
  settlingWrites?: number;
  /** The same window as `idle`, once settled (or past the limit): what the operator does at rest. */
  atRest?: CompareSide["idle"];
}

export interface CompareRun {
  n: number;
  pgkeeper: CompareSide;
  baseline: CompareSide;
}

export interface CompareFigures {
  runs: CompareRun[];
}

export type CompareResult = BenchResult<CompareParameters, CompareFigures>;

/** All requests per Database. */
export const totalRequests = (byVerb: Record<string, number>): number =>
  Object.values(byVerb).reduce((n, v) => n + v, 0);

/** pgkeeper's figure over the baseline's: below 1 is better; null without both. */
export function ratio(ours: number | null, theirs: number | null): number | null {
  if (ours === null || theirs === null || theirs <= 0 || !Number.isFinite(ours)) return null;
  return ours / theirs;
}

/** The ratios a run is judged by (issue 29: time ≤ 1×, CPU ≤ 1.5×, requests ≤ 1×). */
export function ratiosOf(run: CompareRun): Record<string, number | null> {
  const { pgkeeper: p, baseline: b } = run;
  return {
    converged: ratio(p.convergedSeconds, b.convergedSeconds),
    cpu: ratio(p.cpuSeconds, b.cpuSeconds),
    peakRss: ratio(p.peakRssMiB, b.peakRssMiB),
    requests: ratio(totalRequests(p.requestsPerDatabase), totalRequests(b.requestsPerDatabase)),
  };
}

const verbs = (byVerb: Record<string, number>): string =>
  Object.entries(byVerb)
    .filter(([, v]) => v > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([verb, v]) => `${fixed(v, 2)} ${verb}`)
    .join(", ") || NONE;

function rows(run: CompareRun): string[][] {
  const side = (name: string, s: CompareSide) => [
    String(run.n),
    name,
    seconds(s.convergedSeconds),
    seconds(s.cpuSeconds),
    mib(s.peakRssMiB, 0),
    `${fixed(totalRequests(s.requestsPerDatabase), 1)} (${verbs(s.requestsPerDatabase)})`,
    `${count(s.idle.writes)} (+${count(s.idle.leaseWrites)} Lease)`,
    s.atRest
      ? `${count(s.atRest.writes)} writes (+${count(s.atRest.leaseWrites)} Lease), ${count(s.atRest.gets)} GET, ${count(s.atRest.lists)} LIST; settled ${seconds(s.settledSeconds ?? null)} after, ${count(s.settlingWrites ?? 0)} writes meanwhile`
      : NONE,
  ];
  const r = ratiosOf(run);
  return [
    side("controller-runtime", run.baseline),
    side("pgkeeper", run.pgkeeper),
    [
      String(run.n),
      "**pgkeeper ÷ baseline**",
      times(r.converged),
      times(r.cpu),
      times(r.peakRss),
      times(r.requests),
      "",
      "",
    ],
  ];
}

export const compareProblems = (r: CompareResult): string[] =>
  r.figures.runs.length === 0
    ? ["no run"]
    : r.figures.runs.flatMap(run =>
        (["pgkeeper", "baseline"] as const)
          .filter(name => run[name].convergedSeconds === null)
          .map(name => `N=${run.n}: ${name} never converged`),
      );

export function renderCompare(r: CompareResult): string {
  const p = r.parameters;
  const header = columns(
    "N",
    "operator",
    "all observed",
    "operator CPU",
    "peak RSS",
    "requests per Database",
    `writes in the ${p.idleSeconds} s after`,
    `at rest (${p.idleSeconds} s)`,
  );
  return [
    `\`npm run bench:compare -- --n ${p.sizes.join(",")} --workers ${p.workers} --idle ${p.idleSeconds}\`: N Databases of 3 instances created at once on the local control plane (pods stay Pending), each operator with ${p.workers} workers, the controller-runtime baseline first, then pgkeeper's watcher (its \`pepr build\` bundle, as the watcher Deployment runs it). "All observed": until every Database's \`status.observedGeneration\` is current. Requests: the operator's own, from the apiserver's audit log. "At rest": the same window once the pods (made by the controller-manager at its own pace) and the operator's writes had held still for 5 s.`,
    table(header, r.figures.runs.flatMap(rows)),
    describeRun(r),
  ].join("\n\n");
}
