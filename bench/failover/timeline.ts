/**
 * One failover's timeline, from what the bench saw while it happened (pure; observer.ts takes the
 * observations): each phase is the time from the fault until the thing it names last became what
 * the recovered primary needs. Observers poll, so a phase is as precise as its poll period
 * (100 ms for the API and kube-proxy's rules, 200 ms for PostgreSQL's own answer).
 */

/** What one poll saw (observer.ts), `at` when its answers were in. */
export interface Observation {
  at: number;
  /** status.operation of the Database, when one ran. */
  operation?: { type: string; step: string; startedAt: string; stepStartedAt?: string };
  /** IPs of the instances whose PostgreSQL answered that it is not in recovery. */
  writable: string[];
  /** IPs of the pods labelled primary. */
  primaryLabelled: string[];
  /** Ready addresses in `<db>-rw`'s EndpointSlices. */
  rwEndpoints: string[];
  /** Where kube-proxy's rules for `<db>-rw` send a connection. */
  proxyTargets: string[];
}

/** Milliseconds from the fault; absent when that phase did not happen or did not change. */
export interface Timeline {
  /** The operator recorded a failover or a restart (status.operation.startedAt). */
  detectedMs?: number;
  /** The old primary fenced and the target chosen (the operation's step Promoting). */
  fencedMs?: number;
  /** Only the recovered primary answers that it accepts writes (promoted, or restarted in place). */
  promotedMs?: number;
  /** Only the recovered primary's pod carries the primary label. */
  labelledMs?: number;
  /** `<db>-rw`'s ready endpoints are the recovered primary alone. */
  endpointsMs?: number;
  /** kube-proxy's rules for `<db>-rw` lead to the recovered primary alone. */
  proxyMs?: number;
  /** The first acknowledged write after the fault (the figure the percentiles are of). */
  writtenMs: number;
  /**
   * The longest time without an acknowledged write from the fault to that write (failover.ts):
   * what clients felt, which for a switchover is less than the time it took.
   */
  gapMs?: number;
}

export const PHASES = [
  "detectedMs",
  "fencedMs",
  "promotedMs",
  "labelledMs",
  "endpointsMs",
  "proxyMs",
  "writtenMs",
] as const;
export type Phase = (typeof PHASES)[number];

const only = (values: string[], want: string): boolean => values.length === 1 && values[0] === want;

/**
 * When a series last became what is wanted within (from, until]: the first sample after the
 * last one that was not. Undefined when it never was, or never was not (nothing changed).
 */
export function becameAt<T extends { at: number }>(
  series: T[],
  from: number,
  until: number,
  wanted: (sample: T) => boolean,
): number | undefined {
  const window = series.filter(s => s.at >= from && s.at <= until);
  const lastNot = window.map(wanted).lastIndexOf(false);
  if (lastNot < 0 || lastNot === window.length - 1) return undefined;
  return window[lastNot + 1].at;
}

/** The first operation the operator started after the fault: detection and the fence's end. */
function operationTimes(
  observations: Observation[],
  t0: number,
): Pick<Timeline, "detectedMs" | "fencedMs"> {
  const after = (iso: string | undefined): number | undefined => {
    const t = iso === undefined ? NaN : Date.parse(iso);
    return Number.isFinite(t) && t >= t0 ? t - t0 : undefined;
  };
  const ours = observations.map(o => o.operation).filter(op => after(op?.startedAt) !== undefined);
  const promoting = ours.find(op => op?.step === "Promoting");
  return {
    detectedMs: after(ours[0]?.startedAt),
    fencedMs: after(promoting?.stepStartedAt),
  };
}

/**
 * The timeline of a failover that began with a fault at `t0` and ended with a write acknowledged
 * at `writtenAt` by `server`. Observers lag: what they saw up to `slackMs` after the write still
 * counts.
 */
export function timelineOf(input: {
  t0: number;
  writtenAt: number;
  /** The address of the server that acknowledged it. */
  server: string;
  observations: Observation[];
  slackMs?: number;
}): Timeline {
  const { t0, writtenAt, server, observations } = input;
  const until = writtenAt + (input.slackMs ?? 2000);
  const since = (t: number | undefined) => (t === undefined ? undefined : t - t0);
  const phase = (pick: (o: Observation) => string[]) =>
    since(becameAt(observations, t0, until, o => only(pick(o), server)));
  const { detectedMs, fencedMs } = operationTimes(observations, t0);
  const timeline: Timeline = {
    detectedMs,
    fencedMs,
    promotedMs: phase(o => o.writable),
    labelledMs: phase(o => o.primaryLabelled),
    endpointsMs: phase(o => o.rwEndpoints),
    proxyMs: phase(o => o.proxyTargets),
    writtenMs: writtenAt - t0,
  };
  return Object.fromEntries(
    Object.entries(timeline).filter(([, v]) => v !== undefined),
  ) as unknown as Timeline;
}
