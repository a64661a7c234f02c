/** bench/probe's results (bench/probe/run.ts writes them) and their table. */
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { fixed, ms, seconds, times } from "./format";
import { columns, table } from "./table";

export interface ProbeParameters {
  instances: number;
  /** Length of each phase (idle, then each way of probing). */
  seconds: number;
  probeTimeoutMs: number;
  acceptCheckMs: number;
}

/** The four ways of probing, in the order the bench runs them. */
const PROBE_MODES = {
  "plaintext-connection": "plaintext, a connection per probe",
  "plaintext-sessions": "plaintext, long-lived sessions",
  "tls-connection": "TLS, a connection per probe",
  "tls-sessions": "TLS, long-lived sessions (what runs)",
} as const;

export type ProbeMode = keyof typeof PROBE_MODES;

export interface ProbeRow {
  mode: ProbeMode;
  /** CPU ms per instance per second above the idle phase's. */
  operatorMs: number;
  serversMs: number;
  p50Ms: number | null;
  p99Ms: number | null;
  /**
   * The total as the docs printed it, only on transcribed rows: their operator and server
   * figures are rounded, and their sum can miss the printed total by 0.01.
   */
  totalMs?: number;
  /** Probes sent (null when transcribed from docs that did not count them). */
  probes: number | null;
  failures: number;
}

export interface ProbeFigures {
  serversUpSeconds: number;
  /** The idle servers' own CPU, ms per instance per second. */
  idleServersMs: number | null;
  rows: ProbeRow[];
}

export type ProbeResult = BenchResult<ProbeParameters, ProbeFigures>;

const total = (r: ProbeRow) => r.totalMs ?? r.operatorMs + r.serversMs;

function probeTable(f: ProbeFigures): string {
  return table(
    columns("probes", "operator", "servers", "total", "latency p50 / p99"),
    f.rows.map(r => [
      PROBE_MODES[r.mode],
      ms(r.operatorMs, 2),
      ms(r.serversMs, 2),
      ms(total(r), 2),
      `${fixed(r.p50Ms, 0)} / ${fixed(r.p99Ms, 0)} ms`,
    ]),
  );
}

/** Total CPU of `a` over `b`, when the run has both. */
function ratio(f: ProbeFigures, a: ProbeMode, b: ProbeMode): number | null {
  const [x, y] = [f.rows.find(r => r.mode === a), f.rows.find(r => r.mode === b)];
  return x && y ? total(x) / total(y) : null;
}

/**
 * A mode with no figures, or in which most probes failed: its CPU and latency then measure
 * timeouts on an overloaded machine, not probes (a run of 100 instances under another session's
 * load timed out every probe).
 */
export const probeProblems = (r: ProbeResult): string[] => [
  ...Object.keys(PROBE_MODES)
    .filter(mode => !r.figures.rows.some(row => row.mode === mode && row.p50Ms !== null))
    .map(mode => `no probe figures for ${mode}`),
  ...r.figures.rows
    .filter(row => row.probes !== null && row.failures > row.probes / 2)
    .map(row => `${row.mode}: ${row.failures} of ${row.probes} probes failed`),
];

export function renderProbe(r: ProbeResult): string {
  const f = r.figures;
  const p = r.parameters;
  const failures = f.rows.reduce((n, row) => n + row.failures, 0);
  const idle = f.idleServersMs === null ? "" : `; idle servers ${ms(f.idleServersMs, 2)}`;
  return [
    `\`npm run bench:probe -- --instances ${p.instances} --seconds ${p.seconds}\`: one probe per instance per second against ${p.instances} real PostgreSQL 15 servers on loopback (up in ${seconds(f.serversUpSeconds, 0)}${idle}). CPU per instance per second above idle, operator and servers, and probe latency.`,
    probeTable(f),
    `Sessions cost **${times(ratio(f, "tls-sessions", "tls-connection"))}** the CPU of a TLS handshake per probe, and what runs **${times(ratio(f, "tls-sessions", "plaintext-connection"))}** the plaintext connection per probe. ${failures === 0 ? "No probe failed." : `${failures} probes failed.`}`,
    describeRun(r),
  ].join("\n\n");
}
