/** bench/failover's results (bench/failover/failover.ts writes them) and their tables. */
import { percentile } from "../lib/apiclient";
import type { Fault } from "../failover/faults";
import { PHASES, Phase, Timeline } from "../failover/timeline";
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { NONE, count, seconds } from "./format";
import { columns, table } from "./table";

export interface FailoverParameters {
  /** Failovers per fault, unless `counts` says otherwise for one. */
  failovers: number;
  faults: Fault[];
  counts?: Partial<Record<Fault, number>>;
  /** Quorum synchronous replication (MODE=sync) rather than asynchronous. */
  synchronous: boolean;
  instances: number;
  /** How the operator ran: installed by `pepr deploy` (cluster) or under `pepr dev`. */
  operator: "cluster" | "dev";
  /** The operator's probes (PGKEEPER_PROBE_*): what detecting a failed primary takes. */
  probe: { intervalMs: number; timeoutMs: number; failureThreshold: number };
}

export interface FailoverFault {
  fault: Fault;
  attempted: number;
  /** One per failover that ended in an acknowledged write, in ms from the fault. */
  timelines: Timeline[];
  /** Rounds of the load's watch (every 200 ms) in which two instances accepted writes. */
  twoWritableRounds: number;
  failed: string[];
  /**
   * Acknowledged rows missing once this fault's failovers were over, counted from the start of
   * the run (absent in results of runs before it was counted): the difference from the fault
   * before is what this one lost.
   */
  lostSoFar?: number;
  /**
   * A fault kept from an earlier run (KEEP=1: a run of some faults keeps the others' rows): when
   * and how it ran, and the acknowledged rows it lost there.
   */
  earlier?: { date: string | null; commit: string | null; command: string; lost?: number };
}

export interface FailoverFigures {
  faults: FailoverFault[];
  /** Counted once the run is over (null in the results a run saves between faults). */
  rows: { acknowledged: number; lost: number } | null;
}

export type FailoverResult = BenchResult<FailoverParameters, FailoverFigures>;

/**
 * The issue's goal for each fault's p95, in seconds: of the time to the first write after a
 * fault, of the longest write gap for a switchover (which keeps writing while it prepares).
 */
export const P95_GOAL_SECONDS: Record<Fault, number> = {
  delete: 5,
  kill: 5,
  stop: 8,
  cut: 8,
  switchover: 3,
};
const goalOf = (fault: Fault): "writtenMs" | "gapMs" =>
  fault === "switchover" ? "gapMs" : "writtenMs";

const FAULT_TEXT: Record<Fault, string> = {
  delete: "pod deleted",
  kill: "postmaster SIGKILL",
  stop: "every postgres process stopped",
  cut: "network cut",
  switchover: "switchover requested",
};

const PHASE_TEXT: Record<Phase, string> = {
  detectedMs: "detected",
  fencedMs: "fenced",
  promotedMs: "promoted",
  labelledMs: "labelled",
  endpointsMs: "endpoint",
  proxyMs: "kube-proxy",
  writtenMs: "first write",
};

const of = (f: FailoverFault, phase: Phase | "gapMs"): number[] =>
  f.timelines.map(t => t[phase]).filter((v): v is number => typeof v === "number");

const secondsAt = (values: number[], p: number): string =>
  values.length === 0 ? NONE : seconds(percentile(values, p) / 1000, 2);

/** The console's line of a fault. */
export function summarize(f: FailoverFault): string {
  const w = of(f, "writtenMs");
  return `${f.fault.padEnd(6)} n=${w.length}/${f.attempted} p50=${secondsAt(w, 0.5)} p95=${secondsAt(w, 0.95)} max=${secondsAt(w, 1)} two-writable-rounds=${f.twoWritableRounds}${f.failed.length ? `  failed: ${f.failed.join("; ")}` : ""}`;
}

/**
 * What `fault` lost: its count so far less the one of the fault of the same run before it; a
 * fault kept from an earlier run says what it lost there.
 */
function lostIn(faults: FailoverFault[], fault: FailoverFault): string {
  if (fault.earlier) return fault.earlier.lost === undefined ? NONE : count(fault.earlier.lost);
  if (fault.lostSoFar === undefined) return NONE;
  const before = faults
    .slice(0, faults.indexOf(fault))
    .filter(f => !f.earlier)
    .at(-1)?.lostSoFar;
  return count(fault.lostSoFar - (before ?? 0));
}

/** The faults of `previous` that this run does not run, each marked with the run it comes from. */
export function keptFaults(
  previous: FailoverResult | undefined,
  running: readonly Fault[],
): FailoverFault[] {
  if (!previous) return [];
  const faults = previous.figures.faults;
  return faults
    .filter(f => !running.includes(f.fault))
    .map(f => ({
      ...f,
      earlier: f.earlier ?? {
        date: previous.date,
        commit: previous.commit,
        command: failoverCommand(previous.parameters),
        ...(f.lostSoFar === undefined ? {} : { lost: ownLoss(faults, f) }),
      },
    }));
}

/** Rows `fault` lost in its own run (its run's count so far less the fault's before it). */
const ownLoss = (faults: FailoverFault[], fault: FailoverFault): number =>
  (fault.lostSoFar ?? 0) - (faults[faults.indexOf(fault) - 1]?.lostSoFar ?? 0);

/** This run's faults and the kept ones, in the order of FAULTS. */
export const withKept = (
  order: readonly Fault[],
  current: FailoverFault[],
  kept: FailoverFault[],
): FailoverFault[] =>
  [...kept, ...current].sort((a, b) => order.indexOf(a.fault) - order.indexOf(b.fault));

const KEPT_MARK = " ¹";

/** A row per fault: its failovers' p50/p95/max, write gaps, the goal, and what it lost. */
export function faultTable(faults: FailoverFault[]): string {
  return table(
    columns(
      "fault",
      "failovers",
      "p50",
      "p95",
      "max",
      "write gap p50",
      "write gap p95",
      "p95 goal",
      "two writable",
      "rows lost",
    ),
    faults.map(f => {
      const w = of(f, "writtenMs");
      const gaps = of(f, "gapMs");
      const goal = P95_GOAL_SECONDS[f.fault];
      const judged = of(f, goalOf(f.fault));
      const met = judged.length > 0 && percentile(judged, 0.95) <= goal * 1000;
      return [
        FAULT_TEXT[f.fault] + (f.earlier ? KEPT_MARK : ""),
        w.length === f.attempted ? String(w.length) : `${w.length} of ${f.attempted}`,
        secondsAt(w, 0.5),
        secondsAt(w, 0.95),
        secondsAt(w, 1),
        secondsAt(gaps, 0.5),
        secondsAt(gaps, 0.95),
        `${goalOf(f.fault) === "gapMs" ? "gap" : "p95"} ≤ ${goal} s: ${met ? "met" : "**not met**"}`,
        String(f.twoWritableRounds),
        lostIn(faults, f),
      ];
    }),
  );
}

/** Each phase's median per fault, and in how many of the failovers it happened. */
function phaseTable(r: FailoverResult): string {
  return table(
    columns("fault (p50 from the fault)", ...PHASES.map(p => PHASE_TEXT[p])),
    r.figures.faults.map(f => [
      FAULT_TEXT[f.fault] + (f.earlier ? KEPT_MARK : ""),
      ...PHASES.map(p => {
        const v = of(f, p);
        const n = f.timelines.length;
        if (v.length === 0) return NONE;
        return v.length === n ? secondsAt(v, 0.5) : `${secondsAt(v, 0.5)} (${v.length} of ${n})`;
      }),
    ]),
  );
}

function failoverCommand(p: FailoverParameters, keep = false): string {
  const counted = p.faults.map(f => {
    const n = p.counts?.[f] ?? p.failovers;
    return n === p.failovers ? f : `${f}:${n}`;
  });
  return `\`${keep ? "KEEP=1 " : ""}FAILOVERS=${p.failovers} FAULTS=${counted.join(",")}${p.synchronous ? " MODE=sync" : ""} npm run bench:failover\``;
}

function failoverSentence(p: FailoverParameters, keep: boolean): string {
  const probe = `${p.probe.failureThreshold} failed probes, ${p.probe.intervalMs / 1000} s period, ${p.probe.timeoutMs / 1000} s timeout`;
  const where = p.operator === "cluster" ? "installed by `pepr deploy`" : "under `pepr dev`";
  return `${failoverCommand(p, keep)}: the operator ${where} at its defaults (${probe}); a ${p.instances}-instance Database (${p.synchronous ? "quorum synchronous replication" : "asynchronous replication, the default: a commit is acknowledged once on the primary's disk"}) under a continuous write load through \`<db>-rw\` loses its primary ${p.failovers} times per fault${p.faults.some(f => (p.counts?.[f] ?? p.failovers) !== p.failovers) ? " (as many as FAULTS says where it gives a count)" : ""}. Each time: from the fault to the first write acknowledged by the recovered primary (another server, or the same one restarted after a SIGKILL), and the longest time without an acknowledged write in between`;
}

const PHASES_TEXT =
  "Phases, each the moment it last became true for the recovered primary, from the fault: the operator recorded the failover (`detected`), fenced the old primary and chose the target (`fenced`); PostgreSQL answered that only the target accepts writes (`promoted`); only its pod carries the primary label (`labelled`); `<db>-rw`'s ready endpoints are it alone (`endpoint`); kube-proxy's iptables rules lead to it alone (`kube-proxy`), all polled every 100 ms (PostgreSQL over a session kept open to each instance). A phase that never changed (a restart in place keeps its label and address) is counted in fewer failovers.";

/**
 * A fault some of whose failovers the operator handled (it recorded an operation) and some it
 * did not (a killed postmaster restarted in place by the kubelet): each kind's count and median.
 */
function recoveryKinds(f: FailoverFault): string | undefined {
  const operated = f.timelines.filter(t => t.detectedMs !== undefined).map(t => t.writtenMs);
  const inPlace = f.timelines.filter(t => t.detectedMs === undefined).map(t => t.writtenMs);
  if (operated.length === 0 || inPlace.length === 0) return undefined;
  return `${FAULT_TEXT[f.fault]}: ${inPlace.length} restarted in place (first write p50 ${secondsAt(inPlace, 0.5)}, max ${secondsAt(inPlace, 1)}), ${operated.length} failed over by the operator (p50 ${secondsAt(operated, 0.5)}, max ${secondsAt(operated, 1)}).`;
}

/** What makes a run's figures unusable: a fault with no completed failover. */
export const failoverProblems = (r: FailoverResult): string[] =>
  r.figures.faults.length === 0
    ? ["no fault ran"]
    : r.figures.faults
        .filter(f => f.timelines.length === 0)
        .map(f => `${f.fault}: no failover completed`);

/** Where the kept faults' rows come from, one line per earlier run. */
function keptNote(faults: FailoverFault[]): string | undefined {
  const runOf = (f: FailoverFault): string =>
    f.earlier ? JSON.stringify([f.earlier.date, f.earlier.commit, f.earlier.command]) : "";
  const runs = [...new Set(faults.map(runOf).filter(run => run !== ""))];
  if (runs.length === 0) return undefined;
  return runs
    .map(run => {
      const which = faults.filter(f => runOf(f) === run);
      const e = which[0].earlier!;
      const them = which.length === 1 ? "it" : "them";
      return `¹ ${which.map(f => FAULT_TEXT[f.fault]).join(", ")}: kept from the run of ${e.date?.slice(0, 10) ?? "an unknown date"} at commit \`${e.commit ?? "unknown"}\` (${e.command}); this run did not run ${them}, and its totals below leave ${them} out.`;
    })
    .join("\n\n");
}

export function renderFailover(r: FailoverResult): string {
  const current = r.figures.faults.filter(f => !f.earlier);
  const failed = current.flatMap(f => f.failed.map(x => `${f.fault} ${x}`));
  const rows = r.figures.rows;
  const kept = keptNote(r.figures.faults);
  return [
    `${failoverSentence(
      r.parameters,
      r.figures.faults.some(f => f.earlier),
    )}.`,
    faultTable(r.figures.faults),
    ...(kept ? [kept] : []),
    PHASES_TEXT,
    phaseTable(r),
    ...r.figures.faults.map(recoveryKinds).filter((x): x is string => x !== undefined),
    rows === null
      ? "Acknowledged rows lost: not counted (the run stopped before its end)."
      : `Acknowledged rows lost over the whole run: ${count(rows.lost)} of ${count(rows.acknowledged)}.`,
    ...(failed.length > 0 ? [`Failed: ${failed.join("; ")}.`] : []),
    describeRun(r),
  ].join("\n\n");
}
