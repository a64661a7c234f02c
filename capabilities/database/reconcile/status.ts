/**
 * Status as a pure function of what reconcile observed and the previous status. The pass's
 * DatabaseWriter writes the result only when it differs from what is stored.
 */
import { ConditionInput, isTrue, setCondition, setConditions } from "../api/conditions";
import type { BackupSummary } from "../backup/backup-summary";
import { DatabaseStatus, InstanceStatus } from "../api/database-schema";
import type { ImagePullProblem } from "../cluster/image-pull";

export interface ObservedPod {
  name: string;
  ready: boolean;
  role?: string;
  /** A container the kubelet cannot pull the image of: the image and the kubelet's words. */
  imagePull?: ImagePullProblem;
}

export interface Observation {
  generation: number;
  desiredInstances: number;
  primary: string;
  pods: ObservedPod[];
  /** With an object store: this Database's pgBackRest repository in the bucket. */
  repositoryPath?: string;
  /** What its Backups say (nothing when none finished). */
  backups?: BackupSummary;
  /**
   * Whether `<db>-rw` routes to the primary yet, asked only when every instance is ready and
   * the Database was not Ready (undefined: not asked, taken as yes).
   */
  routed?: boolean;
}

type Phase = NonNullable<DatabaseStatus["phase"]>;

const instancesOf = (obs: Observation): InstanceStatus[] =>
  [...obs.pods]
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }))
    .map(p => ({
      name: p.name,
      role: p.name === obs.primary ? "primary" : "replica",
      ready: p.ready,
    }));

/** Every instance ready, the primary too: Ready once `<db>-rw` routes to it. */
export const allInstancesReady = (
  obs: Pick<Observation, "desiredInstances" | "primary" | "pods">,
): boolean =>
  obs.pods.filter(p => p.ready).length === obs.desiredInstances &&
  obs.pods.some(p => p.name === obs.primary && p.ready);

function phaseOf(primaryReady: boolean, wasReady: boolean, obs: Observation): Phase {
  const allReady = allInstancesReady(obs);
  if (allReady && obs.routed !== false) return "Ready";
  // Not routed yet: a Database that never was Ready is still being created.
  if (wasReady || (primaryReady && !allReady)) return "Degraded";
  return "Creating";
}

/** Ready=False while every instance is ready but `<db>-rw` does not route to the primary yet. */
const notRouted = (obs: Observation, counts: string): ConditionInput | undefined =>
  obs.routed === false && allInstancesReady(obs)
    ? {
        type: "Ready",
        status: "False",
        reason: "ServiceNotRouting",
        message: `${counts}; the -rw Service does not route to ${obs.primary} yet`,
      }
    : undefined;

/**
 * status.initializedAt: the first time a primary was ready, then kept. Absent (not undefined)
 * until then: a key holding undefined would read as a change to remove on every pass.
 */
const initialized = (
  prev: DatabaseStatus | undefined,
  primaryReady: boolean,
  now: Date,
): Pick<DatabaseStatus, "initializedAt"> => {
  const at = prev?.initializedAt ?? (primaryReady ? now.toISOString() : undefined);
  return at ? { initializedAt: at } : {};
};

/** Status after a reconcile that applied every child. */
const backupCondition = (obs: Observation): ConditionInput[] =>
  obs.backups?.condition ? [{ type: "BackupSucceeded", ...obs.backups.condition }] : [];

/**
 * status.backup, and what the Backups say. The last success is kept when the Backup objects are
 * deleted: the backups stay in the repository.
 */
function backupFields(obs: Observation): Partial<DatabaseStatus> {
  const { lastSuccessfulBackup, firstRecoverabilityPoint } = obs.backups ?? {};
  return {
    ...(obs.repositoryPath ? { backup: { repositoryPath: obs.repositoryPath } } : {}),
    ...(lastSuccessfulBackup ? { lastSuccessfulBackup } : {}),
    ...(firstRecoverabilityPoint ? { firstRecoverabilityPoint } : {}),
  };
}

/**
 * Ready=False naming the pods whose image cannot be pulled, with the image and the kubelet's
 * reason: the one thing to fix, rather than a count. Nothing is deleted meanwhile; the kubelet
 * keeps trying, and a corrected spec.image rolls the pods.
 */
function imagePullCondition(pods: ObservedPod[], counts: string): ConditionInput | undefined {
  const stuck = pods.filter(p => p.imagePull !== undefined);
  if (stuck.length === 0) return undefined;
  const each = stuck.map(({ name, imagePull: p }) => {
    const why = p!.message ? `: ${p!.message}` : "";
    return `${name} cannot pull ${p!.image} (${p!.reason}${why})`;
  });
  return {
    type: "Ready",
    status: "False",
    reason: "ImagePullBackOff",
    message: `${counts}; ${each.join("; ")}`,
  };
}

export function convergedStatus(
  prev: DatabaseStatus | undefined,
  obs: Observation,
  now: Date,
): DatabaseStatus {
  const ready = obs.pods.filter(p => p.ready).length;
  const primaryReady = obs.pods.some(p => p.name === obs.primary && p.ready);
  const wasReady = isTrue(prev?.conditions, "Ready") || prev?.phase === "Degraded";
  const phase = phaseOf(primaryReady, wasReady, obs);
  const counts = `${ready}/${obs.desiredInstances} instances ready`;
  const notReady = notRouted(obs, counts) ??
    imagePullCondition(obs.pods, counts) ?? {
      type: "Ready",
      status: "False",
      reason: "InstancesNotReady",
      message: counts,
    };
  const conditions = setConditions(
    prev?.conditions,
    [
      {
        type: "Reconciled",
        status: "True",
        reason: "Converged",
        message: "All children match the spec",
      },
      phase === "Ready"
        ? { type: "Ready", status: "True", reason: "AllInstancesReady", message: counts }
        : notReady,
      primaryReady
        ? {
            type: "PrimaryAvailable",
            status: "True",
            reason: "PrimaryReady",
            message: `${obs.primary} is ready`,
          }
        : {
            type: "PrimaryAvailable",
            status: "False",
            reason: "PrimaryNotReady",
            message: `${obs.primary} is not ready`,
          },
      ...backupCondition(obs),
    ],
    now,
    obs.generation,
  );
  const { retry: _retry, backup: _backup, ...rest } = prev ?? {};
  return {
    ...rest,
    ...backupFields(obs),
    phase,
    observedGeneration: obs.generation,
    conditions,
    currentPrimary: obs.primary,
    targetPrimary: obs.primary,
    instances: instancesOf(obs),
    readyInstances: ready,
    ...initialized(prev, primaryReady, now),
  };
}

export interface Failure {
  reason: string;
  message: string;
  attempts: number;
  nextRetryTime?: Date;
  /** Permanent failures (an invalid spec) wait for a spec change: phase Failed, no retry info. */
  permanent?: boolean;
}

/** Status after a failed reconcile; keeps what was observed before. */
export function failedStatus(
  prev: DatabaseStatus | undefined,
  failure: Failure,
  generation: number,
  now: Date,
): DatabaseStatus {
  const conditions = setCondition(
    prev?.conditions,
    { type: "Reconciled", status: "False", reason: failure.reason, message: failure.message },
    now,
    generation,
  );
  const { retry: _retry, ...rest } = prev ?? {};
  const retry = failure.permanent
    ? undefined
    : {
        attempts: failure.attempts,
        lastError: failure.message,
        ...(failure.nextRetryTime ? { nextRetryTime: failure.nextRetryTime.toISOString() } : {}),
      };
  return {
    ...rest,
    phase: failure.permanent ? "Failed" : (prev?.phase ?? "Pending"),
    conditions,
    ...(retry ? { retry } : {}),
  };
}

/** Status of a paused Database: nothing else changes. */
export function pausedStatus(
  prev: DatabaseStatus | undefined,
  generation: number,
  now: Date,
): DatabaseStatus {
  const conditions = setCondition(
    prev?.conditions,
    {
      type: "Reconciled",
      status: "False",
      reason: "Paused",
      message: "spec.paused is true: pgkeeper does not act on this Database",
    },
    now,
    generation,
  );
  const { retry: _retry, ...rest } = prev ?? {};
  return { ...rest, phase: "Paused", observedGeneration: generation, conditions };
}
