/**
 * A major upgrade's next step (ADR 0041), as a pure function of what one pass sees: the spec's
 * major against the data's, the recorded status.upgrade, the instances, the Jobs and the Backup.
 * Each phase records itself in status before its effect, so a restarted operator resumes it:
 *
 *   Waiting ─▶ Checking ─▶ Stopping ─▶ Upgrading ─▶ Starting ─▶ Finishing ─▶ Succeeded
 *                  │                       └───────▶ Failed (the old major runs again, on the
 *                  └──▶ Failed (refused by the checks: nothing stopped)        data as it was)
 */
import { isUnderWay, type UpgradePhase, type UpgradeStatus } from "../api/upgrade-phases";
import { ReadinessView, upgradeWaitsFor, Wait } from "./readiness";

export { isUnderWay, type UpgradePhase, type UpgradeStatus };

/** What a Job did, as the pass sees it. */
export type JobState =
  | { state: "absent" }
  /** A Job of an earlier upgrade (its deletion at this one's start did not happen): never read. */
  | { state: "stale" }
  | { state: "running" }
  | { state: "succeeded"; message: string }
  | { state: "failed"; message: string };

export interface UpgradeView extends ReadinessView {
  /** spec.version and the image it resolves to. */
  wanted: { version: string; image: string };
  /** The image the StatefulSet runs now (the old major's, until the data is converted). */
  runningImage: string;
  upgrade?: UpgradeStatus;
  /** Instance pods that still exist. */
  pods: number;
  /** The primary runs the new image, is ready and answers as a primary. */
  primaryServing: boolean;
  checkJob: JobState;
  convertJob: JobState;
  commitJob: JobState;
  /** The upgrade's Backup, once created: its phase and why it failed. */
  backup?: { phase?: string; error?: string };
  now: Date;
}

export type UpgradeEffect =
  | "deleteJobs"
  | "createBackupBefore"
  | "createCheckJob"
  | "createConvertJob"
  | "createBackup"
  | "createCommitJob"
  | "announce";

export interface UpgradeDecision {
  /** status.upgrade to record first (undefined: as it is). */
  upgrade?: UpgradeStatus;
  /** status.version to record (undefined: as it is). */
  version?: string;
  effects: UpgradeEffect[];
}

const NOTHING: UpgradeDecision = { effects: [] };
/** The instances are down for the conversion: the StatefulSet has no replicas, HA stands aside. */
export const instancesStopped = (u: UpgradeStatus | undefined): boolean =>
  u?.phase === "Stopping" || u?.phase === "Upgrading";

/**
 * From the stop until the new primary serves, high availability stands aside: no failover or
 * restart may act on instances stopped on purpose, or promote a standby of the old major.
 */
export const haStandsAside = (u: UpgradeStatus | undefined): boolean =>
  instancesStopped(u) || u?.phase === "Starting";

/**
 * A Job created before the upgrade started (an earlier one's): creation times are whole seconds,
 * so one made in the second the upgrade started is this upgrade's.
 */
export function createdBefore(created: string, startedAt: string | undefined): boolean {
  const made = Date.parse(created);
  const started = Math.floor(Date.parse(startedAt ?? "") / 1000) * 1000;
  return Number.isFinite(made) && Number.isFinite(started) && made < started;
}

const seconds = (from: string | undefined, to: Date): number | undefined =>
  from === undefined
    ? undefined
    : Math.max(0, Math.round((to.getTime() - Date.parse(from)) / 1000));

type EndedJob = Extract<JobState, { message: string }>;

/**
 * A Job's outcome once it ended; until then what to do: delete an earlier upgrade's Job (never
 * read), create a missing one, or wait for a running one.
 */
function outcomeOf(job: JobState, create: UpgradeEffect): EndedJob | UpgradeDecision {
  switch (job.state) {
    case "stale":
      return { effects: ["deleteJobs"] };
    case "absent":
      return { effects: [create] };
    case "running":
      return NOTHING;
    default:
      return job;
  }
}

const hasEnded = (job: EndedJob | UpgradeDecision): job is EndedJob => "state" in job;

function step(
  u: UpgradeStatus,
  phase: UpgradePhase,
  message: string,
  extra: Partial<UpgradeStatus> = {},
) {
  return { ...u, phase, message, ...extra };
}

function start(v: UpgradeView): UpgradeDecision {
  // The rise that failed is not tried again by itself (each try stops the instances): setting
  // spec.version back to the data's major (Cancelled), then up again, is the retry.
  if (v.upgrade?.phase === "Failed" && v.upgrade.to === v.wanted.version) return NOTHING;
  const base: UpgradeStatus = {
    from: v.data,
    to: v.wanted.version,
    fromImage: v.runningImage,
    primary: v.primary,
    phase: "Waiting",
    startedAt: v.now.toISOString(),
  };
  const wait = upgradeWaitsFor(v);
  const upgrade = wait ? step(base, "Waiting", waitingFor(wait)) : step(base, "Checking", CHECKING);
  return { upgrade, effects: ["deleteJobs", "announce", ...waitEffects(wait)] };
}

function converting(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  const job = outcomeOf(v.convertJob, "createConvertJob");
  if (!hasEnded(job)) return job;
  if (job.state === "failed")
    return {
      upgrade: step(
        u,
        "Failed",
        job.message ||
          `The upgrade Job ended without a reason (its pod killed or evicted); PostgreSQL ${u.from}'s data directory is put back as it was`,
        {
          finishedAt: v.now.toISOString(),
        },
      ),
      effects: ["announce"],
    };
  return {
    upgrade: step(
      u,
      "Starting",
      `${job.message} Starting the primary on PostgreSQL ${u.to}, then the standbys (cloned from it)`,
    ),
    version: u.to,
    effects: ["announce"],
  };
}

function starting(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  if (!v.primaryServing) return NOTHING;
  const servingAt = v.now.toISOString();
  const downtime = seconds(u.stoppedAt, v.now);
  const served = { servingAt, ...(downtime === undefined ? {} : { downtimeSeconds: downtime }) };
  return v.backsUp
    ? {
        upgrade: step(
          u,
          "Finishing",
          `A full backup of PostgreSQL ${u.to} before the old data directory is deleted`,
          served,
        ),
        effects: ["createBackup"],
      }
    : {
        upgrade: step(
          u,
          "Finishing",
          "Deleting the old data directory (no object store: no backup to wait for)",
          served,
        ),
        effects: ["createCommitJob"],
      };
}

/** Whether the new major has a backup of its own; what to do or say while it has not. */
function backedUp(v: UpgradeView, u: UpgradeStatus): UpgradeDecision | "yes" {
  if (!v.backsUp) return "yes";
  if (v.lastBackupAt !== undefined && u.servingAt !== undefined && v.lastBackupAt >= u.servingAt)
    return "yes";
  // Made after the phase was recorded: missing when the operator stopped between the two.
  if (v.backup === undefined) return { effects: ["createBackup"] };
  if (v.backup.phase !== "Failed") return NOTHING;
  return say(
    u,
    `The backup of PostgreSQL ${u.to} failed (${v.backup.error ?? "no reason given"}); the old data directory is kept until a Backup of this Database completes`,
  );
}

/** The phase as it is, with `message` (nothing to write when it says that already). */
const say = (u: UpgradeStatus, message: string): UpgradeDecision =>
  message === u.message ? NOTHING : { upgrade: { ...u, message }, effects: [] };

function finishing(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  const backup = backedUp(v, u);
  if (backup !== "yes") return backup;
  const job = outcomeOf(v.commitJob, "createCommitJob");
  if (!hasEnded(job)) return job;
  if (job.state === "failed")
    return say(u, `Deleting the old data directory failed: ${job.message || "no reason given"}`);
  return {
    upgrade: step(u, "Succeeded", `Upgraded from PostgreSQL ${u.from} to ${u.to}`, {
      finishedAt: v.now.toISOString(),
    }),
    effects: ["deleteJobs", "announce"],
  };
}

/**
 * spec.version set back to the data's major before the conversion ran, or after it failed: the
 * old major runs on (again), and the record says so. A later rise is a new upgrade.
 */
function cancelled(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  const why = `spec.version was set back to ${v.data}`;
  return {
    upgrade: step(
      u,
      "Cancelled",
      u.phase === "Failed" ? `${why}. ${u.message ?? ""}`.trim() : why,
      {
        finishedAt: u.finishedAt ?? v.now.toISOString(),
      },
    ),
    effects: ["announce"],
  };
}

const CANCELLABLE: readonly UpgradePhase[] = ["Waiting", "Checking", "Stopping", "Failed"];

const waitingFor = (wait: Wait): string =>
  `Waiting for ${wait.what} before checking and stopping the instances`;
const waitEffects = (wait: Wait | undefined): UpgradeEffect[] =>
  wait?.takeBackup ? ["createBackupBefore"] : [];
/** The phase as it is, saying what it waits for, and taking the backup it waits for. */
const waitOn = (u: UpgradeStatus, wait: Wait): UpgradeDecision => {
  const said = say(u, waitingFor(wait));
  return { ...said, effects: [...said.effects, ...waitEffects(wait)] };
};
const CHECKING =
  "Checking the upgrade beside the serving primary (pg_upgrade --check, extensions, space, a rehearsal of the schema)";

function waiting(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  const wait = upgradeWaitsFor(v);
  if (wait) return waitOn(u, wait);
  return { upgrade: step(u, "Checking", CHECKING, { primary: v.primary }), effects: [] };
}

/**
 * The check Job, against the serving primary: its refusal ends the upgrade before anything stops;
 * its success stops the instances, unless something it waits for came up meanwhile.
 */
function checking(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  const job = outcomeOf(v.checkJob, "createCheckJob");
  if (!hasEnded(job)) return job;
  if (job.state === "failed")
    return {
      upgrade: step(
        u,
        "Failed",
        `Refused by the checks; nothing was stopped and PostgreSQL ${u.from} serves on. ${
          job.message || "The check Job ended without a reason (its pod killed or evicted)."
        } Set spec.version back to ${u.from}, then raise it again to check anew.`,
        { finishedAt: v.now.toISOString() },
      ),
      effects: ["announce"],
    };
  const wait = upgradeWaitsFor(v);
  if (wait) return waitOn(u, wait);
  // A primary that moved meanwhile holds the same catalogs, which the check was about.
  return {
    upgrade: step(
      u,
      "Stopping",
      `${job.message} Stopping every instance (the primary with a checkpoint)`.trim(),
      { primary: v.primary },
    ),
    effects: ["announce"],
  };
}

function stopping(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  if (v.pods > 0) return NOTHING;
  return {
    upgrade: step(
      u,
      "Upgrading",
      `Converting ${u.primary}'s data directory with pg_upgrade --copy (the old one is kept)`,
      { stoppedAt: v.now.toISOString() },
    ),
    effects: ["createConvertJob"],
  };
}

const UNDER_WAY_STEPS: Record<string, (v: UpgradeView, u: UpgradeStatus) => UpgradeDecision> = {
  Waiting: waiting,
  Checking: checking,
  Stopping: stopping,
  Upgrading: converting,
  Starting: starting,
  Finishing: finishing,
};

export function decideUpgrade(v: UpgradeView): UpgradeDecision {
  const u = v.upgrade;
  if (u && CANCELLABLE.includes(u.phase) && v.wanted.version === v.data && u.to !== v.data)
    return cancelled(v, u);
  if (u && isUnderWay(u)) return UNDER_WAY_STEPS[u.phase](v, u);
  return Number(v.wanted.version) > Number(v.data) ? start(v) : NOTHING;
}
