/** bench/scale's results (bench/scale/run.ts writes them) and their table. */
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { NONE, fixed, mib, seconds } from "./format";
import { columns, table } from "./table";

export interface ScaleParameters {
  sizes: number[];
  concurrencies: number[];
  idleSeconds: number;
  nodes: number;
  resyncSeconds: number;
  nodeOptions: string;
  readyTimeoutSeconds: number;
  /** Where the operator ran (absent in results before it was a choice: the host). */
  placement?: "cluster" | "dev";
}

export interface ScaleIdle {
  seconds: number;
  /** Resync reconciles in the window (null when transcribed without it). */
  reconciles: number | null;
  /** GETs and reconcile LISTs the operator sent the apiserver (audit log). */
  apiGets: number;
  apiLists: number;
  cacheReads: number | null;
  writes: number;
  events: number | null;
  leaseWrites: number | null;
}

export interface ScaleRun {
  n: number;
  concurrency: number;
  /** Time until every Database is reconciled (children applied, observedGeneration current). */
  reconciledSeconds: number | null;
  reconcilesPerSecondUntilReconciled: number | null;
  operatorCpuSecondsUntilReconciled: number | null;
  readySeconds: number | null;
  /** Null when the run stopped before its idle window. */
  idle: ScaleIdle | null;
  peakRssMiB: number | null;
  /** Why a figure is missing or odd; printed as a footnote. */
  note?: string;
  /** Requests per Database until all were Ready, by verb: all clients, and the operator's. */
  requestsPerDatabase?: Record<string, number>;
  operatorRequestsPerDatabase?: Record<string, number>;
  rssNowMiB?: number | null;
  heapUsedMiB?: number | null;
  maxQueueDepth?: number;
}

export interface ScaleFigures {
  runs: ScaleRun[];
}

export type ScaleResult = BenchResult<ScaleParameters, ScaleFigures>;

const MARKS = ["¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"];

/** No read at all is 0 per reconcile however many there were. */
function steadyReads(i: ScaleIdle | null): string {
  if (i === null) return NONE;
  const reads = i.apiGets + i.apiLists;
  if (reads === 0) return "0";
  return i.reconciles === null ? NONE : fixed(reads / Math.max(i.reconciles, 1), 3);
}

const idleWrites = (i: ScaleIdle | null) =>
  i === null ? NONE : `${i.writes} (${fixed(i.seconds / 60, i.seconds % 60 === 0 ? 0 : 1)} min)`;

function scaleTable(runs: ScaleRun[]): { table: string; notes: string[] } {
  const notes: string[] = [];
  const mark = (r: ScaleRun) => {
    if (r.note === undefined) return "";
    notes.push(`${MARKS[notes.length]} ${r.note}`);
    return ` ${MARKS[notes.length - 1]}`;
  };
  const rows = runs.map(r => [
    String(r.n),
    String(r.concurrency),
    `${seconds(r.reconciledSeconds)}${mark(r)}`,
    fixed(r.reconcilesPerSecondUntilReconciled),
    seconds(r.operatorCpuSecondsUntilReconciled),
    seconds(r.readySeconds, 0),
    steadyReads(r.idle),
    idleWrites(r.idle),
    mib(r.peakRssMiB, 0),
  ]);
  const header = columns(
    "N",
    "concurrency",
    "all reconciled",
    "reconciles/s until then",
    "operator CPU until then",
    "all Ready",
    "GET/LIST per steady reconcile",
    "idle writes",
    "peak RSS",
  );
  return { table: table(header, rows), notes };
}

export const scaleProblems = (r: ScaleResult): string[] =>
  r.figures.runs.length === 0
    ? ["no run"]
    : r.figures.runs
        .filter(run => run.reconciledSeconds === null)
        .map(run => `N=${run.n}, concurrency ${run.concurrency}: never all reconciled`);

/** Where the operator ran, as the sentence under the command says it. */
const operatorPlace = (p: ScaleParameters): string =>
  p.placement === "cluster"
    ? "the operator installed by `pepr deploy` (its leading watcher pod measured; the node tier's one real node runs it, the Databases are held to kwok's nodes)"
    : "the operator's watcher bundle run as a host process";

/** The command a result was run with. */
const scaleCommand = (p: ScaleParameters): string =>
  `${p.placement === "cluster" ? "OPERATOR=cluster " : ""}npm run bench:scale -- --n ${p.sizes.join(",")} --concurrency ${p.concurrencies.join(",")} --idle ${p.idleSeconds} --ready-timeout ${p.readyTimeoutSeconds}`;

/**
 * KEEP=1: the previous result's runs of sizes and concurrencies this run does not run, each with
 * a footnote naming the run it comes from; then this run's, by size and concurrency.
 */
export function withKeptRuns(previous: ScaleResult | undefined, current: ScaleRun[]): ScaleRun[] {
  if (!previous) return current;
  const ran = new Set(current.map(r => `${r.n}/${r.concurrency}`));
  const from = `the run of ${(previous.date ?? "an unknown date").slice(0, 10)} at commit \`${previous.commit ?? "unknown"}\` (\`${scaleCommand(previous.parameters)}\`)`;
  const kept = previous.figures.runs
    .filter(r => !ran.has(`${r.n}/${r.concurrency}`))
    .map(r => ({ ...r, note: `Kept from ${from}${r.note ? `; ${r.note}` : "."}` }));
  return [...kept, ...current].sort((a, b) => a.n - b.n || b.concurrency - a.concurrency);
}

export function renderScale(r: ScaleResult): string {
  const p = r.parameters;
  const { table: t, notes } = scaleTable(r.figures.runs);
  return [
    `\`${scaleCommand(p)}\`: N Databases of 3 instances created at once, pods on ${p.nodes} kwok nodes, ${operatorPlace(p)}, resyncs every ${p.resyncSeconds} s${p.nodeOptions ? `, the operator with \`NODE_OPTIONS=${p.nodeOptions}\`` : ""}. Idle writes: the operator's writes besides Lease renewals in the idle window after all were Ready.`,
    t,
    ...(notes.length > 0 ? [notes.join("\n\n")] : []),
    describeRun(r),
  ].join("\n\n");
}
