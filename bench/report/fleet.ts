/** bench/fleet's results (bench/fleet/run.ts writes them) and their tables. */
import type { Fault } from "../failover/faults";
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { count, mib, ms, seconds } from "./format";
import { FailoverFault, faultTable } from "./failover";
import { columns, table } from "./table";

export interface FleetParameters {
  databases: number;
  instances: number;
  restSeconds: number;
  /** Background inserts per second per Database (all but the one that fails over). */
  rate: number;
  counts: Partial<Record<Fault, number>>;
  probe: { intervalMs: number; timeoutMs: number; failureThreshold: number };
}

export interface WatcherUsage {
  cpuSeconds: number;
  rssMiB: number;
  peakMiB: number;
}

export interface FleetFigures {
  /** From the first create to every Database Ready with every replica streaming. */
  readySeconds: number;
  /** Databases created at a time, each batch awaited healthy before the next. */
  createBatch: number;
  /** Failovers the operator started while the fleet was created (nothing failed on purpose). */
  failoversWhileCreating: number;
  /**
   * Instances whose probes' silence the operator did not count while the fleet was created (its
   * watchers' "Probe silence not counted" lines, one per instance and run: ADR 0038); absent in
   * runs from before it.
   */
  silencesDiscounted?: number;
  /** Failovers it started over the windows at rest (null until measured). */
  failoversAtRest: number | null;
  /** Null until the window at rest was measured. */
  rest: {
    seconds: number;
    /** Instance pods measured. */
    instances: number;
    leader: WatcherUsage;
    followerCpuSeconds: number | null;
    /** Every instance pod's CPU over the window, the operator probing them. */
    instancesCpuSeconds: number;
    /** The same over an equal window with no watcher running. */
    instancesUnprobedCpuSeconds: number;
  } | null;
  failovers: FailoverFault[];
  /** The other Databases' writers over the failovers. */
  background: {
    acknowledged: number;
    failed: number;
    seconds: number;
    reasons?: Record<string, number>;
  } | null;
  rows: { acknowledged: number; lost: number } | null;
}

export type FleetResult = BenchResult<FleetParameters, FleetFigures>;

/** CPU ms per instance per second over the window. */
const perInstance = (cpuSeconds: number, rest: NonNullable<FleetFigures["rest"]>): number =>
  (cpuSeconds * 1000) / rest.instances / rest.seconds;

function restTable(r: FleetResult): string {
  const rest = r.figures.rest!;
  const cores = (cpuSeconds: number) =>
    `${((cpuSeconds / rest.seconds) * 100).toFixed(1)}% of a core`;
  const probes = rest.instancesCpuSeconds - rest.instancesUnprobedCpuSeconds;
  return table(columns("at rest", "CPU", "per instance per second", "memory"), [
    [
      "leading watcher",
      cores(rest.leader.cpuSeconds),
      ms(perInstance(rest.leader.cpuSeconds, rest), 2),
      `${mib(rest.leader.rssMiB)} RSS (peak ${mib(rest.leader.peakMiB)})`,
    ],
    [
      "other watcher (standing by)",
      rest.followerCpuSeconds === null ? "–" : cores(rest.followerCpuSeconds),
      "",
      "",
    ],
    [
      `${rest.instances} instances, probed`,
      cores(rest.instancesCpuSeconds),
      ms(perInstance(rest.instancesCpuSeconds, rest), 2),
      "",
    ],
    [
      `${rest.instances} instances, no watcher running`,
      cores(rest.instancesUnprobedCpuSeconds),
      ms(perInstance(rest.instancesUnprobedCpuSeconds, rest), 2),
      "",
    ],
    ["what the probes cost the instances", cores(probes), ms(perInstance(probes, rest), 2), ""],
  ]);
}

/** What makes a run's figures unusable. */
export const fleetProblems = (r: FleetResult): string[] => [
  ...(r.figures.rest === null ? ["no window at rest measured"] : []),
  ...r.figures.failovers
    .filter(f => f.timelines.length === 0)
    .map(f => `${f.fault}: no failover completed`),
];

/** ": `reason` ×n, …", the most frequent first; nothing when the run kept no reasons. */
function failedBecause(reasons: Record<string, number> | undefined): string {
  const listed = Object.entries(reasons ?? {}).sort(([, a], [, b]) => b - a);
  if (listed.length === 0) return "";
  return `: ${listed.map(([reason, n]) => `\`${reason}\` ×${count(n)}`).join(", ")}`;
}

export function renderFleet(r: FleetResult): string {
  const p = r.parameters;
  const f = r.figures;
  const probe = `${p.probe.failureThreshold} failed probes, ${p.probe.intervalMs / 1000} s period, ${p.probe.timeoutMs / 1000} s timeout`;
  const faults = Object.entries(p.counts)
    .map(([fault, n]) => `${fault}:${n}`)
    .join(",");
  const bg = f.background;
  return [
    `\`DATABASES=${p.databases} REST_SECONDS=${p.restSeconds} RATE=${p.rate} FAULTS=${faults} npm run bench:fleet\`: ${p.databases} Databases of ${p.instances} instances (real PostgreSQL 15, failover on) on the local node, the operator installed by \`pepr deploy\` at its defaults (${probe}). Created ${f.createBatch} at a time, each batch awaited Ready with every replica streaming: all of them **${seconds(f.readySeconds, 0)}** after the first create; **${count(f.failoversWhileCreating)} failovers** started meanwhile and ${f.failoversAtRest === null ? "–" : count(f.failoversAtRest)} over the windows at rest, with nothing failed on purpose.${f.silencesDiscounted === undefined ? "" : ` While the fleet was created, ${count(f.silencesDiscounted)} runs of an instance's probe silence were not counted toward a failover (ADR 0038: the node slow, or the operator).`}`,
    `At rest for ${seconds(f.rest!.seconds, 0)} (CPU from each pod's cgroup, exited backends included; memory of the watcher's node process), then as long with the watchers scaled to zero: the difference is what the probes cost the servers.`,
    restTable(r),
    `One Database's failovers while the ${p.databases - 1} others each take ${p.rate} inserts/s through their own \`<db>-rw\`${bg ? ` (${count(bg.acknowledged)} acknowledged, ${count(bg.failed)} failed${failedBecause(bg.reasons)}, over ${seconds(bg.seconds, 0)})` : ""}: from the fault to the first write the recovered primary acknowledged.`,
    faultTable(f.failovers),
    f.rows === null
      ? "Acknowledged rows lost: not counted (the run stopped before its end)."
      : `Acknowledged rows lost (the Database that failed over): ${count(f.rows.lost)} of ${count(f.rows.acknowledged)}.`,
    describeRun(r),
  ].join("\n\n");
}
