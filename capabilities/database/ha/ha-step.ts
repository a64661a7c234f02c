/**
 * The high-availability step of reconcile: feeds the monitor the pods to probe, continues an
 * operation in progress or starts the one `decide` asks for, applies the managed parameters live,
 * and returns what status should show about the instances (as values; reconcile's writer stores
 * them). An operation records its own steps through the same writer, before acting.
 */
import { Database } from "../api/database";
import { ANNOTATION_SWITCHOVER, databaseKey, ordinalOf } from "../api/names";
import { KubeObject, isPodReady, isTerminating, podIP, refOf } from "../cluster/cluster";
import { imagePullProblem } from "../cluster/image-pull";
import { postgresContainerOf } from "./postgres-container";
import { parseQuantity } from "../lib/quantity";
import { Decision, HaInput, InstanceView, decide, primaryFailure } from "./decide";
import { instanceStatus, InstancesStatus, readServing } from "./instance-status";
import { applyParameters, followNewPrimary } from "./live-parameters";
import { DatabaseMemory, PendingAfterReload } from "./memory";
import { ProbeRecord, ProbeTarget } from "../instance/monitor";
import type { TargetOf } from "../instance/targets";
import type { ConditionInput } from "../api/conditions";
import { instanceName } from "../api/names";
import { archivingCondition, backlogPastHalf } from "./archiving";
import { recoveryCondition, recoveryStateOf } from "./recovery";
import type { ArchiverState } from "../instance/types";
import { OperationContext, runOperation, startOperation } from "./operation";
import { HaStepInput, announceOnce, haInput } from "./step-input";
import { syncPassfiles } from "./passfile";
import { keepTls } from "./tls-upkeep";
import { repairStuckReplicas } from "./repair-replica";
import { fenceSecondPrimaries } from "./second-primary";
import { failoverTargetNow } from "./target-after-fence";

export type { HaDeps, HaStepInput } from "./step-input";

export interface HaResult {
  requeueAfterMs?: number;
  /** Status fields the HA step owns, merged by reconcile into the status it writes. */
  status: InstancesStatus;
  /** The primary after this step (changes when an operation completed). */
  primary: string;
  /** An operation is running: reconcile must not relabel pods or recompute the phase. */
  busy: boolean;
  /** Why the managed parameters could not be applied everywhere (undefined: they were). */
  parametersError?: string;
  /** Replicas that must not serve reads through `<db>-ro`, with the reason. */
  notServing: Record<string, string>;
  /** An object store is set: archiving is on. */
  archivingConfigured?: boolean;
  /** With an object store: the primary's archiving, as its last probe saw it. */
  archiver?: ArchiverState;
  /** bootstrap.recovery: how the restore stands (the Recovered condition). */
  recovery?: ConditionInput;
}

/** Parameters that could not be applied are tried again this often. */
const PARAMETERS_RETRY_MS = 10_000;
/** A switchover request waiting for the first probes is looked at again this often. */
const PROBES_AWAITED_MS = 1000;
/** A refused failover is looked at again this often. */
const FAILOVER_RETRY_MS = 2000;

function podView(pod: KubeObject): NonNullable<InstanceView["pod"]> {
  return {
    uid: pod.metadata?.uid ?? "",
    ready: isPodReady(pod),
    terminating: isTerminating(pod),
    revision: pod.metadata?.labels?.["controller-revision-hash"],
    ...(imagePullProblem(pod) ? { imagePullFailing: true } : {}),
    ...postgresContainerOf(pod),
  };
}

function viewOf(
  pod: KubeObject,
  records: Map<string, ProbeRecord>,
  reloads: DatabaseMemory["parameters"]["pendingAfterReload"],
): InstanceView {
  const name = pod.metadata?.name ?? "";
  const record = records.get(name);
  const view: InstanceView = { name, ordinal: ordinalOf(name), pod: podView(pod) };
  if (record && record.uid === pod.metadata?.uid)
    view.sql = {
      ok: record.ok,
      failures: record.failures,
      probe: record.probe,
      ...(record.lastError ? { lastError: record.lastError } : {}),
    };
  return withReload(view, reloads.get(view.pod?.uid ?? ""));
}

/** Adds what the last reload left pending, while the same postmaster runs (a restart loaded it). */
function withReload(view: InstanceView, reload: PendingAfterReload | undefined): InstanceView {
  return reload && reload.postmasterStartTime === view.sql?.probe?.postmasterStartTime
    ? { ...view, pendingAfterReload: reload.pending }
    : view;
}

/** One view per pod, plus the primary even when its pod is gone. */
function views(
  pods: KubeObject[],
  records: Map<string, ProbeRecord>,
  primary: string,
  memory: DatabaseMemory,
): InstanceView[] {
  const result = pods.map(pod => viewOf(pod, records, memory.parameters.pendingAfterReload));
  if (!result.some(v => v.name === primary))
    result.push({ name: primary, ordinal: ordinalOf(primary) });
  return result.sort((a, b) => a.ordinal - b.ordinal);
}

function operationContext(
  step: HaStepInput,
  instances: InstanceView[],
  memory: DatabaseMemory,
): OperationContext {
  const { db, ha } = step;
  return {
    cluster: step.cluster,
    sql: step.sql,
    db,
    input: step.input,
    pods: step.pods,
    target: step.target,
    now: step.now,
    applyChild: step.applyChild,
    writer: step.writer,
    onFailover: s => ha.onFailover?.(db.metadata?.namespace ?? "", db.metadata?.name ?? "", s),
    failoverTarget: preferred => failoverTargetNow(step, instances, memory, preferred),
    announceOnce: (type, reason, message) =>
      announceOnce(memory, { db, cluster: step.cluster }, type, reason, message),
  };
}

function haInputOf(
  step: HaStepInput,
  instances: InstanceView[],
  failover: DatabaseMemory["failover"],
): HaInput {
  const input = haInput(step, instances);
  const now = input.now;
  // Since when the primary has been failing: kept across reconciles, cleared once it is healthy.
  if (!primaryFailure(input)) failover.downSince = undefined;
  else failover.downSince ??= now;
  return { ...input, primaryDownSince: failover.downSince };
}

/** The pods the monitor probes: those with an address that are not going away. */
const probeTargets = (pods: KubeObject[], target: TargetOf): ProbeTarget[] =>
  pods
    .filter(p => !isTerminating(p) && podIP(p))
    .map(p => ({
      name: p.metadata?.name ?? "",
      uid: p.metadata?.uid ?? "",
      target: target(podIP(p) ?? ""),
      node: (p.spec as { nodeName?: string } | undefined)?.nodeName,
    }));

const keyOf = (db: Database): string =>
  databaseKey(db.metadata?.namespace ?? "", db.metadata?.name ?? "");

export async function haStep(step: HaStepInput): Promise<HaResult> {
  const { db, ha } = step;
  const key = keyOf(db);
  ha.memory.keepPods(key, new Set(step.pods.map(p => p.metadata?.uid ?? "")));
  const memory = ha.memory.of(key);
  const maxLag = parseQuantity(step.input.spec.readOnly.maxLag);
  step.monitor.track(key, probeTargets(step.pods, step.target), maxLag);
  const records = step.monitor.view(key);
  if ([...records.values()].some(r => r.ok && r.probe?.byMonitor)) memory.monitor.loggedIn = true;
  const instanceViews = views(step.pods, records, step.primary, memory);
  const ctx = operationContext(step, instanceViews, memory);
  // bootstrap.recovery: the Recovered condition, once per pass (status and Warning share it).
  const recovery = recoveryOf(step);
  const result = (
    primary: string,
    rest: Omit<HaResult, "status" | "primary" | "notServing">,
  ): HaResult => {
    const notServing = readServing(step, instanceViews, primary);
    return {
      ...rest,
      status: instanceStatus(instanceViews, primary, db, step.updateRevision, notServing),
      primary,
      notServing,
      ...archivingOf(step, instanceViews, primary),
      ...(recovery ? { recovery } : {}),
    };
  };

  const running = db.status?.operation;
  if (running) {
    const { primary, ...done } = await runOperation(ctx, running);
    if (primary) await followNewPrimary(step, primary, instanceViews, records, memory);
    return result(primary ?? step.primary, { ...done, busy: !done.done });
  }
  const secondPrimaryAgainMs = await fenceSecondPrimaries(step, instanceViews, memory);
  const repairAgainMs = await repairStuckReplicas(step, instanceViews, memory);
  const decision = decide(haInputOf(step, instanceViews, memory.failover));
  const acted = await act(ctx, decision, step, memory);
  if (acted.operationDone) {
    memory.failover.downSince = undefined;
    const primary = step.writer.status?.currentPrimary ?? step.primary;
    await followNewPrimary(step, primary, instanceViews, records, memory);
    return result(primary, { busy: false });
  }
  const config = await applyParameters(step, step.primary, instanceViews, records, memory);
  await syncPassfiles(step, records, memory);
  await keepTls(step, records, memory);
  await announceArchiveFailure(step, instanceViews, memory);
  await announceRecoveryFailure(step, recovery, memory);
  await announceStartRefusals(step, instanceViews, memory);
  return result(step.primary, {
    requeueAfterMs: soonest(
      acted.requeueAfterMs,
      config.error ? PARAMETERS_RETRY_MS : undefined,
      secondPrimaryAgainMs,
      repairAgainMs,
    ),
    busy: acted.busy,
    ...(config.error ? { parametersError: config.error } : {}),
  });
}

/**
 * One Warning per segment that fails to archive (the message names the segment, not the time of
 * each retry, so PostgreSQL's retries do not repeat it).
 */
async function announceArchiveFailure(
  step: HaStepInput,
  views: InstanceView[],
  memory: DatabaseMemory,
): Promise<void> {
  if (!step.input.spec.backup?.objectStore) return;
  const archiver = views.find(v => v.name === step.primary)?.sql?.probe?.archiver;
  const volume = parseQuantity(step.input.spec.storage.size);
  if (archiver && backlogPastHalf(archiver, volume))
    await announceOnce(
      memory,
      step,
      "Warning",
      "ArchiveBacklog",
      `WAL waiting to be archived fills half of ${step.primary}'s ${step.input.spec.storage.size} volume or more (ContinuousArchiving has the count). If the store stays unreachable the volume fills and the primary stops writing: fix the store or grow spec.storage.size`,
    );
  if (archivingCondition(archiver)?.status !== "False") return;
  await announceOnce(
    memory,
    step,
    "Warning",
    "ArchiveFailing",
    `Archiving ${archiver?.lastFailedWal ?? "WAL"} from ${step.primary} to the object store fails; PostgreSQL keeps it in pg_wal and retries (status.conditions ContinuousArchiving)`,
  );
}

/** With an object store: the primary's archiving as last probed, also handed to the metrics. */
function archivingOf(
  step: HaStepInput,
  views: InstanceView[],
  primary: string,
): Pick<HaResult, "archivingConfigured" | "archiver"> {
  const configured = step.input.spec.backup?.objectStore !== undefined;
  const archiver = configured
    ? views.find(v => v.name === primary)?.sql?.probe?.archiver
    : undefined;
  const { namespace = "", name = "" } = step.db.metadata ?? {};
  step.ha.onArchiving?.(namespace, name, archiver);
  return {
    ...(configured ? { archivingConfigured: true } : {}),
    ...(archiver ? { archiver } : {}),
  };
}

/** bootstrap.recovery: the Recovered condition, from the first pod (which alone restores). */
function recoveryOf(step: HaStepInput): ConditionInput | undefined {
  const recovery = step.input.spec.bootstrap?.recovery;
  if (!recovery) return undefined;
  const first = instanceName(step.db.metadata?.name ?? "", 0);
  const pod = step.pods.find(p => p.metadata?.name === first);
  const store = recovery.source.objectStore;
  return recoveryCondition(
    true,
    step.db.status?.initializedAt !== undefined || (pod !== undefined && isPodReady(pod)),
    recoveryStateOf(pod),
    `${store.endpoint}/${store.bucket}${recovery.source.repositoryPath}`,
  );
}

/** One Warning per distinct reason a restore failed (the kubelet's retries do not repeat it). */
async function announceRecoveryFailure(
  step: HaStepInput,
  condition: ConditionInput | undefined,
  memory: DatabaseMemory,
): Promise<void> {
  if (condition?.status !== "False") return;
  const reason = condition.message.replace(/ \(attempt [^)]*\)/, "");
  await announceOnce(memory, step, "Warning", "RecoveryFailed", reason);
}

/**
 * One Warning per distinct set of instances whose entrypoint refuses to start them, with its
 * words (an image of another major than spec.version, a data directory of another major): the
 * kubelet's retries do not repeat it. status.instances[].startRefused holds it meanwhile.
 */
async function announceStartRefusals(
  step: HaStepInput,
  views: InstanceView[],
  memory: DatabaseMemory,
): Promise<void> {
  const refused = views
    .filter(v => v.pod?.startRefused)
    .map(v => `${v.name}: ${v.pod!.startRefused}`)
    .sort();
  if (refused.length > 0)
    await announceOnce(memory, step, "Warning", "InstanceStartRefused", refused.join("; "));
}

/** The earliest of the given delays, or undefined when none is given. */
function soonest(...delays: (number | undefined)[]): number | undefined {
  const given = delays.filter((d): d is number => d !== undefined);
  return given.length > 0 ? Math.min(...given) : undefined;
}

interface Acted {
  requeueAfterMs?: number;
  busy: boolean;
  operationDone?: boolean;
}

async function act(
  ctx: OperationContext,
  decision: Decision,
  step: HaStepInput,
  memory: DatabaseMemory,
): Promise<Acted> {
  switch (decision.kind) {
    case "steady":
      return { busy: false };
    case "waitForFailoverDelay":
      return { busy: false, requeueAfterMs: decision.remainingMs };
    case "waitForProbes":
      // The monitor wakes reconcile when its first answers come in; this is the fallback.
      return { busy: false, requeueAfterMs: PROBES_AWAITED_MS };
    case "cannotFailover":
      await announceOnce(memory, ctx, "Warning", "FailoverImpossible", decision.reason);
      return { busy: false, requeueAfterMs: FAILOVER_RETRY_MS };
    case "refuseSwitchover":
      await ctx.cluster.recordEvent(ctx.db, {
        type: "Warning",
        reason: "SwitchoverRefused",
        message: decision.reason,
      });
      await ctx.writer.removeAnnotation(ANNOTATION_SWITCHOVER);
      return { busy: false };
    case "restart":
      return restartInstance(ctx, step, decision.instance, decision.reason);
    case "restartPrimary":
      return beginOperation(ctx, step, {
        kind: "restartPrimary",
        to: step.primary,
        reason: decision.reason,
      });
    case "failover":
    case "switchover":
      return beginOperation(ctx, step, decision);
  }
}

/** Rolling restart of one instance: delete its pod (normal grace: a clean shutdown). */
async function restartInstance(
  ctx: OperationContext,
  step: HaStepInput,
  instance: string,
  reason: string,
): Promise<Acted> {
  const pod = step.pods.find(p => p.metadata?.name === instance);
  if (!pod) return { busy: false };
  await ctx.cluster.recordEvent(ctx.db, {
    type: "Normal",
    reason: "InstanceRestarting",
    message: `Restarting ${instance}: ${reason}`,
  });
  await ctx.cluster.delete(refOf(pod), { uid: pod.metadata?.uid });
  return { busy: true, requeueAfterMs: FAILOVER_RETRY_MS };
}

const OPERATION_TYPE = {
  failover: "Failover",
  switchover: "Switchover",
  restartPrimary: "Restart",
} as const;

async function beginOperation(
  ctx: OperationContext,
  step: HaStepInput,
  decision:
    | Extract<Decision, { kind: "failover" | "switchover" }>
    | { kind: "restartPrimary"; to: string; reason: string },
): Promise<Acted> {
  const requested = decision.kind === "switchover" && decision.requested;
  const op = await startOperation(ctx, {
    type: OPERATION_TYPE[decision.kind],
    from: step.primary,
    to: decision.to,
    reason: decision.reason,
    ...(requested ? { requested: true } : {}),
  });
  const result = await runOperation(ctx, op);
  return { requeueAfterMs: result.requeueAfterMs, busy: !result.done, operationDone: result.done };
}
