/**
 * A major upgrade's next step (ADR 0041), as a pure function of what one pass sees: the spec's
 * major against the data's, the recorded status.upgrade, the instances, the Jobs and the Backup.
 * Each phase records itself in status before its effect, so a restarted operator resumes it:
 *
 *   Waiting ─▶ Stopping ─▶ Upgrading ─▶ Starting ─▶ Finishing ─▶ Succeeded
 *                              └───────▶ Failed (the old major runs again, on the data as it was)
 */
import type { DatabaseStatus } from "../api/database-schema";

export type UpgradeStatus = NonNullable<DatabaseStatus["upgrade"]>;
export type UpgradePhase = UpgradeStatus["phase"];

/** What a Job did, as the pass sees it. */
export type JobState =
  | { state: "absent" }
  /** A Job of an earlier upgrade (its deletion at this one's start did not happen): never read. */
  | { state: "stale" }
  | { state: "running" }
  | { state: "succeeded"; message: string }
  | { state: "failed"; message: string };

export interface UpgradeView {
  /** spec.version and the image it resolves to. */
  wanted: { version: string; image: string };
  /** The major the data is on (status.version, else what the StatefulSet runs, else the spec's). */
  data: string;
  /** The image the StatefulSet runs now (the old major's, until the data is converted). */
  runningImage: string;
  upgrade?: UpgradeStatus;
  /** The primary whose data is upgraded. */
  primary: string;
  /** An operation or a backup under way: what an upgrade waits for before it stops anything. */
  busyWith?: string;
  /** Instance pods that still exist. */
  pods: number;
  /** The primary runs the new image, is ready and answers as a primary. */
  primaryServing: boolean;
  convertJob: JobState;
  commitJob: JobState;
  /** An object store is configured: the new major is backed up before the old data goes. */
  backsUp: boolean;
  /** When the newest Completed Backup of this Database stopped (status.lastSuccessfulBackup). */
  lastBackupAt?: string;
  /** The upgrade's Backup, once created: its phase and why it failed. */
  backup?: { phase?: string; error?: string };
  now: Date;
}

export type UpgradeEffect =
  | "deleteJobs"
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
const UNDER_WAY: readonly UpgradePhase[] = [
  "Waiting",
  "Stopping",
  "Upgrading",
  "Starting",
  "Finishing",
];

export const isUnderWay = (u: UpgradeStatus | undefined): boolean =>
  u !== undefined && UNDER_WAY.includes(u.phase);

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
  const upgrade = v.busyWith
    ? step(base, "Waiting", `Waiting for ${v.busyWith} to end before stopping the instances`)
    : step(base, "Stopping", "Stopping every instance (the primary with a checkpoint)");
  return { upgrade, effects: ["deleteJobs", "announce"] };
}

function converting(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  const job = v.convertJob;
  if (job.state === "stale") return { effects: ["deleteJobs"] };
  if (job.state === "absent") return { effects: ["createConvertJob"] };
  if (job.state === "running") return NOTHING;
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
  const job = v.commitJob;
  if (job.state === "stale") return { effects: ["deleteJobs"] };
  if (job.state === "absent") return { effects: ["createCommitJob"] };
  if (job.state === "running") return NOTHING;
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

const CANCELLABLE: readonly UpgradePhase[] = ["Waiting", "Stopping", "Failed"];

function waiting(v: UpgradeView, u: UpgradeStatus): UpgradeDecision {
  if (v.busyWith) return say(u, `Waiting for ${v.busyWith} to end before stopping the instances`);
  return {
    upgrade: step(u, "Stopping", "Stopping every instance (the primary with a checkpoint)"),
    effects: [],
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
