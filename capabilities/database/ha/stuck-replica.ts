/**
 * A replica that runs but can never follow its primary: its server answers in recovery, yet its
 * WAL receiver does not stream and it replays nothing. PostgreSQL retries forever and gets
 * nowhere when its history diverged from the primary's (it received WAL from a former primary
 * that the new one never had: "new timeline N forked off current database system timeline M
 * before current recovery point"), or when the WAL it needs next is gone from the primary
 * ("requested WAL segment ... has already been removed"). Only other data helps.
 *
 * It is repaired (repair-replica.ts) once it has been seen so, with the primary up and writable,
 * for STUCK_CONFIRM_MS with its replay position unchanged: a standby still replaying WAL from its
 * own disk after a restart has no WAL receiver either, but its replay position moves. A repair is
 * not repeated for the same instance within REPAIR_AGAIN_AFTER_MS, so a cause that a repair
 * cannot remove (a primary it cannot reach) costs a restart every few minutes, not a loop.
 *
 * The clock runs only while the primary is writable and its pod Ready: standbys reach it through
 * `<db>-rw`, which routes to it only once it is Ready. After a primary restarts (a rolling
 * restart puts it first when a limit is lowered), every standby is disconnected until the
 * Service follows; the e2e tier saw two standbys "repaired" at once that way. And one repair at
 * a time across the Database (REPAIR_SPACING_MS apart): a repair restarts a pod, and in quorum
 * mode two standbys down at once stop every write.
 *
 * Pure, over what the caller remembers; table-tested.
 */
import { answering, type InstanceView } from "./decide";

export const STUCK_CONFIRM_MS = 30_000;
export const REPAIR_AGAIN_AFTER_MS = 300_000;
export const REPAIR_SPACING_MS = 60_000;

/** Since when (ms) a replica has been seen not following, and where its replay stood then. */
export interface NotFollowingSince {
  since: number;
  replayLsn: string;
}

export interface StuckMemory {
  /** Per pod UID. */
  notFollowingSince: Map<string, NotFollowingSince>;
  /** Per instance name (a repair replaces the pod): when it was last repaired (ms). */
  repairedAt: Map<string, number>;
}

const writablePrimary = (v: InstanceView | undefined): boolean =>
  answering(v) && v.sql?.probe?.inRecovery === false && v.pod?.ready === true;

/** Replicas whose server answers in recovery while their WAL receiver is not streaming. */
function notFollowing(views: InstanceView[], primary: string): InstanceView[] {
  return views.filter(
    v =>
      v.name !== primary &&
      answering(v) &&
      v.sql?.probe?.inRecovery === true &&
      v.sql.probe.walReceiverStatus !== "streaming",
  );
}

/** Where the replica's replay stands (its received position when it reports no replay). */
const replayOf = (v: InstanceView): string => v.sql?.probe?.replayLsn ?? v.sql?.probe?.lsn ?? "";

/**
 * When (ms) the replica is due for a repair: STUCK_CONFIRM_MS after it was first seen at its
 * current replay position, and not within REPAIR_AGAIN_AFTER_MS of its last repair. Records the
 * sighting in `memory`.
 */
function dueAt(view: InstanceView, memory: StuckMemory, now: number): number {
  const uid = view.pod!.uid;
  const replayLsn = replayOf(view);
  const before = memory.notFollowingSince.get(uid);
  const entry = before?.replayLsn === replayLsn ? before : { since: now, replayLsn };
  memory.notFollowingSince.set(uid, entry);
  const last = memory.repairedAt.get(view.name);
  const again = last === undefined ? 0 : last + REPAIR_AGAIN_AFTER_MS;
  const anyLast = Math.max(0, ...memory.repairedAt.values());
  const spaced = anyLast === 0 ? 0 : anyLast + REPAIR_SPACING_MS;
  return Math.max(entry.since + STUCK_CONFIRM_MS, again, spaced);
}

/**
 * The replicas to repair now, and how soon to look again when one is on its way there. Updates
 * `memory.notFollowingSince` (the caller records a repair in `memory.repairedAt`).
 */
export function replicasToRepair(
  views: InstanceView[],
  primary: string,
  memory: StuckMemory,
  now: number,
): { repair: InstanceView[]; lookAgainMs?: number } {
  const seen = writablePrimary(views.find(v => v.name === primary))
    ? notFollowing(views, primary)
    : [];
  const uids = new Set(seen.map(v => v.pod!.uid));
  for (const uid of memory.notFollowingSince.keys())
    if (!uids.has(uid)) memory.notFollowingSince.delete(uid);
  const repair: InstanceView[] = [];
  let lookAgainMs: number | undefined;
  for (const view of seen) {
    const due = dueAt(view, memory, now);
    // One at a time: the others wait for the spacing after this one.
    if (due <= now && repair.length === 0) repair.push(view);
    else lookAgainMs = Math.min(lookAgainMs ?? Infinity, due > now ? due - now : REPAIR_SPACING_MS);
  }
  return { repair, lookAgainMs };
}

/** Why the replica is repaired, for the Event: what the operator saw. */
export function stuckReason(view: InstanceView, primary: string): string {
  const probe = view.sql?.probe;
  const receiver = probe?.walReceiverStatus ?? "not running";
  const seconds = STUCK_CONFIRM_MS / 1000;
  return `${view.name} answers but has neither streamed from ${primary} nor replayed any WAL for ${seconds} s (WAL receiver ${receiver}, timeline ${probe?.timeline ?? "unknown"}, replayed to ${probe?.replayLsn ?? probe?.lsn ?? "unknown"})`;
}
