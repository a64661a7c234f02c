/**
 * The backups step as reconcile runs it (backup/backups.ts does the work): from which instances
 * a backup may copy this pass, and back when spec.backup.schedule next fires, whatever else
 * happens meanwhile.
 */
import { BackupInstances, reconcileBackups } from "../backup/backups";
import { untilNextFireMs } from "../backup/scheduled-backups";
import { KubeObject } from "../cluster/cluster";
import type { HaResult } from "../ha/ha-step";
import type { Found, Pass, StepResult } from "./pass";
import { observePods } from "./pods";

/**
 * Where a backup may copy from: the primary only when HA is idle and it is ready (a backup
 * started mid-failover would fail), standbys that are ready and serve reads (they stream).
 */
function backupInstances(pods: KubeObject[], ha: HaResult | undefined): BackupInstances {
  if (!ha || ha.busy) return { standbys: [] };
  const ready = observePods(pods).filter(p => p.ready);
  return {
    primary: ready.some(p => p.name === ha.primary) ? ha.primary : undefined,
    standbys: ready
      .map(p => p.name)
      .filter(name => name !== ha.primary && ha.notServing[name] === undefined)
      .sort(),
  };
}

export async function backupsStep(
  { deps, db, input, pods, spec }: Pass,
  found: Found,
): Promise<StepResult> {
  const now = deps.now();
  const schedule = spec.backup?.objectStore ? spec.backup.schedule : undefined;
  const requeue = schedule ? { requeueAfterMs: untilNextFireMs(schedule, now) } : {};
  try {
    const instances = backupInstances(pods, found.ha);
    const backups = await reconcileBackups(deps.cluster, db, input, instances, now);
    return { found: { backups }, ...requeue };
  } catch (failure) {
    return { failure, ...requeue };
  }
}
