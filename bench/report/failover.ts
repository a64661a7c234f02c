/** bench/failover's results (bench/failover/failover.ts writes them) and their table. */
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { count, seconds } from "./format";
import { columns, table } from "./table";

export interface FailoverParameters {
  failovers: number;
  fault: "delete" | "kill" | "stop";
  modes: string[];
  instances: number;
  /** The operator's probes (PGKEEPER_PROBE_*): what detecting a failed primary takes. */
  probe: { intervalMs: number; timeoutMs: number; failureThreshold: number };
}

export interface FailoverMode {
  mode: string;
  /** Failovers that ended in a write acknowledged by another server. */
  failovers: number;
  attempted: number;
  /** Fault → first write acknowledged by another server, each failover, in ms. */
  p50Ms: number | null;
  p95Ms: number | null;
  maxMs: number | null;
  acknowledgedRows: number;
  lostRows: number;
  twoWritableRounds: number;
  failed: string[];
}

export interface FailoverFigures {
  modes: FailoverMode[];
}

export type FailoverResult = BenchResult<FailoverParameters, FailoverFigures>;

const secondsOf = (ms: number | null) => seconds(ms === null ? null : ms / 1000, 2);

function failoverTable(r: FailoverResult): string {
  return table(
    columns("mode", "failovers", "p50", "p95", "max", "acknowledged rows lost", "two writable"),
    r.figures.modes.map(m => [
      m.mode,
      m.failovers === m.attempted ? String(m.failovers) : `${m.failovers} of ${m.attempted}`,
      secondsOf(m.p50Ms),
      secondsOf(m.p95Ms),
      secondsOf(m.maxMs),
      `${count(m.lostRows)} of ${count(m.acknowledgedRows)}`,
      String(m.twoWritableRounds),
    ]),
  );
}

function failoverCommand(p: FailoverParameters): string {
  const probe = `${p.probe.failureThreshold} failed probes, ${p.probe.intervalMs / 1000} s period, ${p.probe.timeoutMs / 1000} s timeout`;
  return `\`FAILOVERS=${p.failovers} FAULT=${p.fault} MODES=${p.modes.join(",")} npm run bench:failover\` (${probe}): a ${p.instances}-instance Database under a continuous write load through \`<db>-rw\` loses its primary ${p.failovers} times per mode`;
}

/** What makes a run's figures unusable: a mode with no completed failover. */
export const failoverProblems = (r: FailoverResult): string[] =>
  r.figures.modes.length === 0
    ? ["no mode ran"]
    : r.figures.modes.filter(m => m.failovers === 0).map(m => `${m.mode}: no failover completed`);

export function renderFailover(r: FailoverResult): string {
  const failed = r.figures.modes.flatMap(m => m.failed.map(f => `${m.mode} ${f}`));
  return [
    `${failoverCommand(r.parameters)}; each time, the time from the fault to the first write acknowledged by another server, then acknowledged rows missing and rounds in which two instances accepted writes.`,
    failoverTable(r),
    ...(failed.length > 0 ? [`Failed: ${failed.join("; ")}.`] : []),
    describeRun(r),
  ].join("\n\n");
}
