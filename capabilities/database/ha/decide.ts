/**
 * High-availability decisions as a pure function of what the operator observes: whether to fail
 * over (and to which replica), switch over, restart an instance, or wait. Side effects live in
 * operation.ts and ha-step.ts; everything here is table-tested.
 */
import type { ResolvedSpec } from "../api/defaults";
import { ordinalOf } from "../api/names";
import type { InstanceProbe } from "../instance/types";
import { loweredLimits } from "./hot-standby-limits";
import { parseLsn } from "../instance/lsn";

/** One instance slot: its pod as the API shows it and the operator's last SQL probe of it. */
export interface InstanceView {
  name: string;
  ordinal: number;
  pod?: {
    uid: string;
    ready: boolean;
    terminating: boolean;
    /** controller-revision-hash: which StatefulSet template the pod was made from. */
    revision?: string;
    /** The kubelet cannot pull one of its images (cluster/image-pull.ts): it never started. */
    imagePullFailing?: boolean;
    /** Its postgres container waits out a crash-loop backoff (postgres-container.ts). */
    crashLooping?: boolean;
    /** When the kubelet last restarted its postgres container in place (ms), if it did. */
    restartedAt?: number;
    /** The image its postgres container was started with, and its digest (postgres-container.ts). */
    image?: string;
    imageID?: string;
    /** While it is not running: why its entrypoint refused to start (postgres-container.ts). */
    startRefused?: string;
  };
  sql?: {
    /** The last probe answered (and none failed since). */
    ok: boolean;
    /** Consecutive failed probes. */
    failures: number;
    /** The last answer, kept while later probes fail. */
    probe?: InstanceProbe;
    /** Why the last probe failed: said in the failover's reason. */
    lastError?: string;
  };
  /**
   * Restart-only parameters that our last ALTER SYSTEM + reload on this postmaster left pending:
   * known at once, while the probe reports them only on its next round. Without it, a rollout
   * could see the primary pending before a replica and switch over too early.
   */
  pendingAfterReload?: string[];
}

/** Its pod is up and not going away, and its last probe answered. */
export const answering = (v: InstanceView | undefined): v is InstanceView =>
  !!v?.pod && !v.pod.terminating && v.sql?.ok === true;

export interface HaInput {
  spec: Pick<ResolvedSpec, "instances" | "postgresql"> & {
    failover: Pick<ResolvedSpec["failover"], "enabled" | "delaySeconds">;
  };
  primary: string;
  instances: InstanceView[];
  /** StatefulSet status.updateRevision, when the controller has caught up with our template. */
  updateRevision?: string;
  /** Standbys the primary last reported as synchronous (quorum mode). */
  synchronousStandbys: string[];
  /** The switchover annotation's value, if any. */
  switchoverRequest?: string;
  /** The Database had a working primary before (phase Ready or Degraded). */
  wasUp: boolean;
  /** Since when (ms) the primary has been seen unhealthy; undefined when healthy. */
  primaryDownSince?: number;
  now: number;
  failureThreshold: number;
}

export type Decision =
  | { kind: "steady" }
  | { kind: "waitForFailoverDelay"; remainingMs: number }
  | { kind: "failover"; to: string; reason: string }
  | { kind: "cannotFailover"; reason: string }
  | { kind: "switchover"; to: string; reason: string; requested: boolean }
  | { kind: "refuseSwitchover"; reason: string }
  | { kind: "waitForProbes"; reason: string }
  | { kind: "restart"; instance: string; reason: string }
  | { kind: "restartPrimary"; reason: string };

const byName = (input: HaInput, name: string): InstanceView | undefined =>
  input.instances.find(i => i.name === name);

/**
 * How long a primary whose postgres container the kubelet restarted in place may take to answer
 * again before its failed probes count. The first restart after a crash comes at once, and crash
 * recovery takes a second or two: in place, writes resume in 2.5 s; failed over, in 7 s
 * (bench/failover, postmaster SIGKILL). Bounded: a restart that hangs is failed over after it.
 */
export const RESTART_IN_PLACE_GRACE_MS = 5000;

/**
 * Its probes failed `failureThreshold` times in a row, and it is not a primary the kubelet
 * restarted in place within the grace (its probes fail while crash recovery runs).
 */
function stoppedAnswering(primary: InstanceView, input: HaInput): boolean {
  const sql = primary.sql;
  if (!sql || sql.ok || sql.failures < input.failureThreshold) return false;
  const restartedAt = primary.pod?.restartedAt;
  return restartedAt === undefined || input.now - restartedAt >= RESTART_IN_PLACE_GRACE_MS;
}

/** Why the primary counts as failed, or undefined when it is healthy (or never started). */
export function primaryFailure(input: HaInput): string | undefined {
  const primary = byName(input, input.primary);
  if (!primary?.pod) return `the primary's pod ${input.primary} does not exist`;
  if (primary.pod.terminating) return `the primary's pod ${input.primary} is being deleted`;
  // Crashed again soon after a restart: the kubelet waits 10 s or more before the next one.
  if (primary.pod.crashLooping)
    return `the primary's postgres container ${input.primary} is in CrashLoopBackOff`;
  if (stoppedAnswering(primary, input)) {
    const last = primary.sql?.lastError ? `; the last: ${primary.sql.lastError}` : "";
    return `${input.primary} stopped answering SQL probes (${input.failureThreshold} failed in a row${last})`;
  }
  // A primary restarted as a standby answers: the operation in progress promotes it.
  return undefined;
}

const healthyReplica = (i: InstanceView): boolean => answering(i) && !!i.sql?.probe?.inRecovery;

const streaming = (i: InstanceView): boolean =>
  healthyReplica(i) && !!i.pod?.ready && i.sql?.probe?.walReceiverStatus === "streaming";

const receivedLsn = (i: InstanceView): bigint => {
  try {
    return parseLsn(i.sql?.probe?.lsn ?? "");
  } catch {
    return -1n; // no answer yet: last in line
  }
};

/**
 * Which of two timelines is higher, when that is known: a timeline read from a restartpoint (WAL
 * receiver not running) is only a lower bound, and decides only when it is the higher one.
 */
function laterTimeline(a: InstanceView, b: InstanceView): number {
  const pa = a.sql?.probe;
  const pb = b.sql?.probe;
  const ta = pa?.timeline ?? 0;
  const tb = pb?.timeline ?? 0;
  if (ta === tb) return 0;
  const [higher, lowerIsBound] = ta > tb ? [-1, pb?.timelineAtLeast] : [1, pa?.timelineAtLeast];
  return lowerIsBound ? 0 : higher;
}

/**
 * Most advanced first: the highest timeline (a replica still on an older one has not followed the
 * last promotion, and LSNs of different timelines do not compare), then the most WAL held, then
 * the lowest ordinal, so the choice is deterministic. A timeline known only as a lower bound never
 * counts as older: a standby whose WAL receiver just timed out (its primary cut off) reports its
 * last restartpoint's, and ranking it behind by that made a failover promote a standby with less
 * WAL than it (CI, 2026-12-02).
 */
const moreAdvanced = (a: InstanceView, b: InstanceView): number => {
  const byTimeline = laterTimeline(a, b);
  if (byTimeline !== 0) return byTimeline;
  const la = receivedLsn(a);
  const lb = receivedLsn(b);
  return la === lb ? 0 : la > lb ? -1 : 1;
};

const bestFirst =
  (preferred?: string) =>
  (a: InstanceView, b: InstanceView): number => {
    const byData = moreAdvanced(a, b);
    if (byData !== 0) return byData;
    if (a.name === preferred || b.name === preferred) return a.name === preferred ? -1 : 1;
    return a.ordinal - b.ordinal;
  };

/**
 * Standbys that answered two rounds of probes (taken with the primary fenced) whose position or
 * timeline differs between them, or that answered only the second: still replaying WAL they have,
 * so their position says less than what is on their disk.
 */
export function stillMoving(first: InstanceView[], second: InstanceView[]): string[] {
  const position = (i: InstanceView | undefined): string | undefined => {
    const probe = i?.sql?.ok ? i.sql.probe : undefined;
    return probe?.inRecovery ? `${probe.timeline}/${probe.lsn}` : undefined;
  };
  return second
    .filter(now => {
      const after = position(now);
      return after !== undefined && after !== position(first.find(f => f.name === now.name));
    })
    .map(now => now.name);
}

/**
 * The replica to promote when the primary failed. In quorum mode only standbys the primary
 * counted as synchronous are eligible, and enough of them must answer that the most advanced one
 * surely holds every acknowledged commit: with q of s standbys confirming each commit, any
 * s - q + 1 of them include one that confirmed it. `preferred` wins a tie (the target already
 * chosen, when choosing again after the fence).
 */
export function failoverCandidate(
  input: HaInput,
  preferred?: string,
): { to: string } | { refused: string } {
  const candidates = input.instances.filter(
    i => i.name !== input.primary && i.ordinal < input.spec.instances && healthyReplica(i),
  );
  const sync = input.spec.postgresql.synchronous;
  if (sync.mode === "quorum") {
    // The last set the primary reported, less instances that can no longer hold the newest WAL
    // on its behalf: the primary itself (after an earlier failover) and replicas scaled away.
    const known = input.synchronousStandbys.filter(
      name => name !== input.primary && ordinalOf(name) < input.spec.instances,
    );
    if (known.length === 0)
      return { refused: "no synchronous standby was ever reported by the primary" };
    const eligible = candidates.filter(c => known.includes(c.name));
    const needed = known.length - (sync.number ?? 1) + 1;
    if (eligible.length < needed)
      return {
        refused: `only ${eligible.length} of the synchronous standbys (${known.join(", ")}) answer; ${needed} are needed to be sure no acknowledged write is lost`,
      };
    return { to: [...eligible].sort(bestFirst(preferred))[0].name };
  }
  if (candidates.length === 0) return { refused: "no healthy replica to promote" };
  return { to: [...candidates].sort(bestFirst(preferred))[0].name };
}

/**
 * The replica a planned switchover goes to: streaming on the primary's timeline, below the
 * instance count, best first.
 */
function switchoverCandidate(input: HaInput, requested?: string): string | { refused: string } {
  const timeline = byName(input, input.primary)?.sql?.probe?.timeline;
  const pool = input.instances.filter(
    i =>
      i.name !== input.primary &&
      i.ordinal < input.spec.instances &&
      streaming(i) &&
      i.sql?.probe?.timeline === timeline,
  );
  const sync = input.spec.postgresql.synchronous;
  const eligible =
    sync.mode === "quorum" ? pool.filter(i => input.synchronousStandbys.includes(i.name)) : pool;
  if (requested && requested !== "auto") {
    if (requested === input.primary) return { refused: `${requested} is already the primary` };
    if (!eligible.some(i => i.name === requested))
      return {
        refused: `${requested} is not a ready, streaming${sync.mode === "quorum" ? ", synchronous" : ""} replica`,
      };
    return requested;
  }
  if (eligible.length === 0) return { refused: "no ready, streaming replica to switch over to" };
  return [...eligible].sort(bestFirst())[0].name;
}

/**
 * Which instances a switchover request is judged on have a ready pod but no probe answer yet (a
 * leader that has just started has probed nothing): the request waits for them rather than being
 * refused on what is merely unknown. Undefined when nothing is missing.
 */
function notProbedYet(input: HaInput, requested: string): string | undefined {
  const judgedOn = (i: InstanceView): boolean =>
    i.name === input.primary ||
    (requested === "auto" ? i.ordinal < input.spec.instances : i.name === requested);
  const missing = input.instances
    .filter(i => judgedOn(i) && i.pod?.ready && !i.pod.terminating && i.sql === undefined)
    .map(i => i.name);
  if (missing.length === 0) return undefined;
  return `${missing.join(", ")} ${missing.length === 1 ? "has" : "have"} not been probed yet`;
}

/** Why an instance must restart to match the spec, or undefined. */
export const needsRestart = (i: InstanceView, updateRevision?: string): string | undefined => {
  if (updateRevision && i.pod?.revision && i.pod.revision !== updateRevision)
    return "runs an older pod template";
  const pending = new Set([
    ...(i.sql?.probe?.pendingRestart ?? []),
    ...(i.pendingAfterReload ?? []),
  ]);
  if (pending.size > 0) return `parameters pending restart: ${[...pending].join(", ")}`;
  return undefined;
};

/**
 * Every instance up, answering, replicas streaming, none missing: one of them may be taken down
 * now. A slot below the instance count without a pod (deleted, not yet recreated) is down too.
 */
const allHealthy = (input: HaInput): boolean =>
  input.instances.filter(i => i.pod && i.ordinal < input.spec.instances).length >=
    input.spec.instances &&
  input.instances.every(i =>
    i.name === input.primary
      ? !!i.pod?.ready && !i.pod.terminating && !!i.sql?.ok && i.sql.probe?.inRecovery === false
      : streaming(i),
  );

export function decide(input: HaInput): Decision {
  const failure = input.wasUp ? primaryFailure(input) : undefined;
  if (failure) return failoverDecision(input, failure);
  if (ordinalOf(input.primary) >= input.spec.instances) {
    const to = switchoverCandidate(input);
    return typeof to === "string"
      ? { kind: "switchover", to, reason: "ScaleDown", requested: false }
      : { kind: "steady" }; // wait for a replica below the new count to be ready
  }
  if (input.switchoverRequest) {
    const unknown = notProbedYet(input, input.switchoverRequest);
    if (unknown) return { kind: "waitForProbes", reason: unknown };
    const to = switchoverCandidate(input, input.switchoverRequest);
    return typeof to === "string"
      ? { kind: "switchover", to, reason: "Requested", requested: true }
      : { kind: "refuseSwitchover", reason: to.refused };
  }
  return rollingRestart(input);
}

function failoverDecision(input: HaInput, failure: string): Decision {
  if (!input.spec.failover.enabled || input.spec.instances < 2) return { kind: "steady" };
  const since = input.primaryDownSince ?? input.now;
  const remainingMs = since + input.spec.failover.delaySeconds * 1000 - input.now;
  if (remainingMs > 0) return { kind: "waitForFailoverDelay", remainingMs };
  const candidate = failoverCandidate(input);
  if ("refused" in candidate)
    return { kind: "cannotFailover", reason: `${failure}, but ${candidate.refused}` };
  return { kind: "failover", to: candidate.to, reason: failure };
}

/** The managed parameters as the instances get them (names folded to lower case). */
const desiredParameters = (input: HaInput): Record<string, string> =>
  Object.fromEntries(
    Object.entries(input.spec.postgresql.parameters ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
  );

/**
 * Replicas first (lowest ordinal first), then the primary by a switchover; one at a time. When
 * the change lowers a limit a standby must match (hot-standby-limits.ts), the primary goes first
 * instead, restarted in place: a standby restarted first would refuse to run below its primary,
 * and a switchover would promote a standby that still has the higher value.
 */
/**
 * An outdated pod that is down anyway, one that cannot pull its image or whose postgres keeps
 * ending (an image of another major its entrypoint refused): replacing it takes nothing down, and
 * it would wait forever for every instance to be healthy. A corrected spec.image heals it.
 */
function downRestart(outdated: { i: InstanceView; why: string }[]): Decision | undefined {
  const down = (p: InstanceView["pod"]) =>
    !!p && !p.terminating && (p.imagePullFailing || p.crashLooping);
  const stuck = outdated.find(x => down(x.i.pod));
  if (!stuck) return undefined;
  const pod = stuck.i.pod!;
  const why = pod.imagePullFailing
    ? "its image could not be pulled"
    : `its postgres keeps ending${pod.startRefused ? ` (${pod.startRefused})` : ""}`;
  return { kind: "restart", instance: stuck.i.name, reason: `${stuck.why}, and ${why}` };
}

function rollingRestart(input: HaInput): Decision {
  const outdated = input.instances
    .map(i => ({ i, why: needsRestart(i, input.updateRevision) }))
    .filter((x): x is { i: InstanceView; why: string } => x.why !== undefined);
  const down = downRestart(outdated);
  if (down) return down;
  if (outdated.length === 0 || !allHealthy(input)) return { kind: "steady" };
  return nextRestart(input, outdated);
}

/** Every instance healthy: the next outdated one to restart, in the order above. */
function nextRestart(input: HaInput, outdated: { i: InstanceView; why: string }[]): Decision {
  const primaryOutdated = outdated.find(x => x.i.name === input.primary);
  const lowered = loweredLimits(
    primaryOutdated?.i.sql?.probe?.hotStandbyLimits,
    desiredParameters(input),
  );
  if (primaryOutdated && lowered.length > 0 && input.spec.instances >= 2)
    return {
      kind: "restartPrimary",
      reason: `lowering ${lowered.join(", ")}: the primary restarts first (${primaryOutdated.why})`,
    };
  const replica = outdated.find(x => x.i.name !== input.primary);
  if (replica) return { kind: "restart", instance: replica.i.name, reason: replica.why };
  const primary = outdated[0];
  if (input.spec.instances < 2)
    return { kind: "restart", instance: primary.i.name, reason: primary.why };
  const to = switchoverCandidate(input);
  return typeof to === "string"
    ? { kind: "switchover", to, reason: "RollingRestart", requested: false }
    : { kind: "steady" };
}
