/**
 * What status says about the instances, from the pods and the last probes: role, readiness,
 * positions and lag, pending restarts, the synchronous set, and which replicas serve reads.
 */
import { Database } from "../api/database";
import { DatabaseStatus, InstanceStatus } from "../api/database-schema";
import { LABEL_ROLE, ROLE_REPLICA } from "../api/names";
import { parseQuantity } from "../lib/quantity";
import { InstanceView, needsRestart } from "./decide";
import { lagBytes } from "../instance/lsn";
import { notServingReason } from "./serving";
import { HaStepInput } from "./step-input";

export type InstancesStatus = Pick<
  DatabaseStatus,
  "instances" | "pendingRestart" | "synchronousStandbys"
>;

/** What the last answer of an instance adds to its status entry. */
function probeFields(
  i: InstanceView,
  isPrimary: boolean,
  primaryLsn: string | undefined,
  syncNames: string[],
): Partial<InstanceStatus> {
  const probe = i.sql?.ok ? i.sql.probe : undefined;
  if (!probe) return {};
  const replica = isPrimary
    ? {}
    : {
        ...(primaryLsn ? { lagBytes: Number(lagBytes(primaryLsn, probe.lsn)) } : {}),
        streaming: probe.walReceiverStatus === "streaming",
        synchronous: syncNames.includes(i.name),
      };
  const pending = probe.pendingRestart.length ? { pendingRestart: probe.pendingRestart } : {};
  return { timeline: probe.timeline, lsn: probe.lsn, ...replica, ...pending };
}

/** The replicas that must not serve reads, each with the reason (see serving.ts). */
export function readServing(
  step: HaStepInput,
  instances: InstanceView[],
  primary: string,
): Record<string, string> {
  const maxLag = parseQuantity(step.input.spec.readOnly.maxLag);
  const source = instances.find(i => i.name === primary);
  const servingNow = (name: string): boolean =>
    step.pods.find(p => p.metadata?.name === name)?.metadata?.labels?.[LABEL_ROLE] === ROLE_REPLICA;
  const reasons: Record<string, string> = {};
  for (const i of instances) {
    if (i.name === primary || !i.pod) continue;
    const reason = notServingReason(i, source, maxLag, servingNow(i.name));
    if (reason) reasons[i.name] = reason;
  }
  return reasons;
}

const servingFields = (reason: string | undefined): Partial<InstanceStatus> =>
  reason ? { servesReads: false, notServingReason: reason } : { servesReads: true };

/** status.instances, pendingRestart and the synchronous set from the pods and the probes. */
export function instanceStatus(
  instances: InstanceView[],
  primary: string,
  db: Database,
  updateRevision: string | undefined,
  notServing: Record<string, string>,
): InstancesStatus {
  const primaryProbe = instances.find(i => i.name === primary)?.sql?.probe;
  const syncNames = (primaryProbe?.standbys ?? [])
    .filter(s => s.syncState === "sync" || s.syncState === "quorum")
    .map(s => s.name)
    .sort();
  const primaryLsn = primaryProbe && !primaryProbe.inRecovery ? primaryProbe.lsn : undefined;
  const list: InstanceStatus[] = instances
    .filter(i => i.pod)
    .map(i => ({
      name: i.name,
      role: i.name === primary ? "primary" : "replica",
      ready: !!i.pod?.ready,
      ...probeFields(i, i.name === primary, primaryLsn, syncNames),
      ...(needsRestart(i, updateRevision) ? { needsRestart: true } : {}),
      ...(i.name === primary ? {} : servingFields(notServing[i.name])),
      ...(i.pod?.image ? { image: i.pod.image } : {}),
      ...(i.pod?.imageID ? { imageID: i.pod.imageID } : {}),
      ...(i.pod?.startRefused ? { startRefused: i.pod.startRefused } : {}),
    }));
  const pendingRestart = [...new Set(list.flatMap(i => i.pendingRestart ?? []))].sort();
  // A primary reporting no synchronous standby (just restarted, standbys reconnecting) cannot
  // acknowledge a commit, so the last non-empty set still names who may hold the newest ones.
  return {
    instances: list,
    pendingRestart,
    synchronousStandbys: syncNames.length > 0 ? syncNames : (db.status?.synchronousStandbys ?? []),
  };
}
