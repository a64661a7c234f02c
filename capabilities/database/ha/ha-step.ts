/**
 * The high-availability step of reconcile: feeds the monitor the pods to probe, continues an
 * operation in progress or starts the one `decide` asks for, applies the managed parameters live,
 * and returns what status should show about the instances.
 */
import { Database } from "../api/database";
import { DatabaseStatus, InstanceStatus } from "../api/database-schema";
import { ANNOTATION_SWITCHOVER } from "../api/names";
import { errorMessage } from "../lib/errors";
import { managedParameters } from "../specs/postgresql-conf";
import { BuildInput } from "../specs";
import { POSTGRES_PORT } from "../specs/layout";
import { Cluster, KubeObject, refOf } from "../reconcile/cluster";
import { Decision, HaInput, InstanceView, decide, needsRestart, primaryFailure } from "./decide";
import { lagBytes } from "./lsn";
import { ProbeRecord } from "./monitor";
import { OperationContext, runOperation, startOperation } from "./operation";
import type { InstanceSql } from "./probe-types";

/** What reconcile needs from the HA machinery (absent: no SQL, no failover; unit tests). */
export interface HaDeps {
  monitor: {
    track(
      key: string,
      targets: { name: string; uid: string; ip: string }[],
      password: string,
    ): void;
    view(key: string): Map<string, ProbeRecord>;
    untrack?(key: string): void;
  };
  sql: InstanceSql;
  failureThreshold: number;
  onFailover?: (namespace: string, name: string, seconds: number) => void;
  /** The controller's memory across reconciles (newHaMemory()). */
  memory: HaMemory;
}

/**
 * Memory of this operator process: when each primary was first seen failing, which parameter
 * set each pod got (so steady state makes no SQL writes), which warnings were already raised.
 * Losing it on restart only costs one re-application and one repeated Event.
 */
export interface HaMemory {
  downSince: Map<string, number>;
  /** When status last got fresh LSN/lag figures, per Database. */
  progressWrittenAt: Map<string, number>;
  appliedParameters: Map<string, string>;
  /** Per pod UID: what the last reload left pending restart, and on which postmaster. */
  pendingAfterReload: Map<string, { pending: string[]; postmasterStartTime?: string }>;
  announced: Map<string, string>;
}

export const newHaMemory = (): HaMemory => ({
  downSince: new Map(),
  progressWrittenAt: new Map(),
  appliedParameters: new Map(),
  pendingAfterReload: new Map(),
  announced: new Map(),
});

export interface HaResult {
  writes: number;
  requeueAfterMs?: number;
  /** Status fields the HA step owns, merged by reconcile into the status it writes. */
  status: Pick<DatabaseStatus, "instances" | "pendingRestart" | "synchronousStandbys">;
  /** The primary after this step (changes when an operation completed). */
  primary: string;
  /** An operation is running: reconcile must not relabel pods or recompute the phase. */
  busy: boolean;
  /** Why the managed parameters could not be applied everywhere (undefined: they were). */
  parametersError?: string;
}

interface StepInput {
  cluster: Cluster;
  ha: HaDeps;
  db: Database;
  input: BuildInput;
  primary: string;
  pods: KubeObject[];
  password: string;
  now: () => Date;
  isLeader: () => boolean;
}

const keyOf = (db: Database): string => `${db.metadata?.namespace}/${db.metadata?.name}`;
const podIP = (pod: KubeObject): string | undefined =>
  (pod.status as { podIP?: string } | undefined)?.podIP;
const isReady = (pod: KubeObject): boolean =>
  ((pod.status as { conditions?: { type: string; status: string }[] })?.conditions ?? []).some(
    c => c.type === "Ready" && c.status === "True",
  );
const ordinalOf = (name: string): number => Number(name.slice(name.lastIndexOf("-") + 1));

function viewOf(
  pod: KubeObject,
  records: Map<string, ProbeRecord>,
  reloads: HaMemory["pendingAfterReload"],
): InstanceView {
  const name = pod.metadata?.name ?? "";
  const record = records.get(name);
  const terminating = !!pod.metadata?.deletionTimestamp;
  const view: InstanceView = {
    name,
    ordinal: ordinalOf(name),
    pod: {
      uid: pod.metadata?.uid ?? "",
      ready: isReady(pod) && !terminating,
      terminating,
      revision: pod.metadata?.labels?.["controller-revision-hash"],
    },
  };
  if (record && record.uid === pod.metadata?.uid)
    view.sql = { ok: record.ok, failures: record.failures, probe: record.probe };
  return withReload(view, reloads);
}

/** Adds what the last reload left pending, while the same postmaster runs (a restart loaded it). */
function withReload(view: InstanceView, reloads: HaMemory["pendingAfterReload"]): InstanceView {
  const reload = view.pod && reloads.get(view.pod.uid);
  return reload && reload.postmasterStartTime === view.sql?.probe?.postmasterStartTime
    ? { ...view, pendingAfterReload: reload.pending }
    : view;
}

/** One view per pod, plus the primary even when its pod is gone. */
function views(
  pods: KubeObject[],
  records: Map<string, ProbeRecord>,
  primary: string,
  reloads: HaMemory["pendingAfterReload"],
): InstanceView[] {
  const result = pods.map(pod => viewOf(pod, records, reloads));
  if (!result.some(v => v.name === primary))
    result.push({ name: primary, ordinal: ordinalOf(primary) });
  return result.sort((a, b) => a.ordinal - b.ordinal);
}

function operationContext(step: StepInput): OperationContext {
  const { db, ha } = step;
  return {
    cluster: step.cluster,
    sql: ha.sql,
    db,
    input: step.input,
    pods: step.pods,
    password: step.password,
    port: POSTGRES_PORT,
    now: step.now,
    isLeader: step.isLeader,
    onFailover: s => ha.onFailover?.(db.metadata?.namespace ?? "", db.metadata?.name ?? "", s),
  };
}

function haInputOf(
  step: StepInput,
  instances: InstanceView[],
  updateRevision: string | undefined,
): HaInput {
  const { db, ha } = step;
  const now = step.now().getTime();
  const phase = db.status?.phase;
  return {
    spec: step.input.spec,
    primary: step.primary,
    instances,
    updateRevision,
    synchronousStandbys: db.status?.synchronousStandbys ?? [],
    switchoverRequest: db.metadata?.annotations?.[ANNOTATION_SWITCHOVER],
    wasUp: phase === "Ready" || phase === "Degraded",
    primaryDownSince: trackDownSince(
      ha.memory.downSince,
      keyOf(db),
      primaryFailure(baseInput(step, instances)),
      now,
    ),
    now,
    failureThreshold: ha.failureThreshold,
  };
}

export async function haStep(
  step: StepInput,
  updateRevision: string | undefined,
): Promise<HaResult> {
  const { db, ha } = step;
  const key = keyOf(db);
  const targets = step.pods
    .filter(p => !p.metadata?.deletionTimestamp && podIP(p))
    .map(p => ({ name: p.metadata?.name ?? "", uid: p.metadata?.uid ?? "", ip: podIP(p) ?? "" }));
  ha.monitor.track(key, targets, step.password);
  const records = ha.monitor.view(key);
  const instanceViews = views(step.pods, records, step.primary, ha.memory.pendingAfterReload);
  const ctx = operationContext(step);
  const result = (primary: string, rest: Omit<HaResult, "status" | "primary">): HaResult => ({
    ...rest,
    status: instanceStatus(instanceViews, primary, db, updateRevision),
    primary,
  });

  const running = db.status?.operation;
  if (running) {
    const done = await runOperation(ctx, running);
    return result(done.done ? running.to : step.primary, { ...done, busy: !done.done });
  }
  const acted = await act(ctx, decide(haInputOf(step, instanceViews, updateRevision)), step);
  if (acted.operationDone) {
    ha.memory.downSince.delete(key);
    return result(db.status?.currentPrimary ?? step.primary, { writes: acted.writes, busy: false });
  }
  const config = await applyParameters(step, instanceViews, records);
  return result(step.primary, {
    writes: acted.writes + config.writes,
    requeueAfterMs: config.error
      ? Math.min(acted.requeueAfterMs ?? Infinity, PARAMETERS_RETRY_MS)
      : acted.requeueAfterMs,
    busy: acted.busy,
    ...(config.error ? { parametersError: config.error } : {}),
  });
}

const baseInput = (step: StepInput, instances: InstanceView[]) => ({
  spec: step.input.spec,
  primary: step.primary,
  instances,
  synchronousStandbys: [],
  wasUp: true,
  now: 0,
  failureThreshold: step.ha.failureThreshold,
});

function trackDownSince(
  downSince: Map<string, number>,
  key: string,
  failure: string | undefined,
  now: number,
): number | undefined {
  if (!failure) {
    downSince.delete(key);
    return undefined;
  }
  if (!downSince.has(key)) downSince.set(key, now);
  return downSince.get(key);
}

interface Acted {
  writes: number;
  requeueAfterMs?: number;
  busy: boolean;
  operationDone?: boolean;
}

async function act(ctx: OperationContext, decision: Decision, step: StepInput): Promise<Acted> {
  const { db, cluster } = ctx;
  switch (decision.kind) {
    case "steady":
      return { writes: 0, busy: false };
    case "waitForFailoverDelay":
      return { writes: 0, busy: false, requeueAfterMs: decision.remainingMs };
    case "cannotFailover":
      await announceOnce(step.ha.memory, ctx, "Warning", "FailoverImpossible", decision.reason);
      return { writes: 1, busy: false, requeueAfterMs: 2000 };
    case "refuseSwitchover":
      await cluster.recordEvent(db, {
        type: "Warning",
        reason: "SwitchoverRefused",
        message: decision.reason,
      });
      await cluster.removeAnnotation(db, ANNOTATION_SWITCHOVER);
      return { writes: 2, busy: false };
    case "restart":
      return restartInstance(ctx, step, decision.instance, decision.reason);
    case "failover":
    case "switchover":
      return beginOperation(ctx, step, decision);
  }
}

/** Rolling restart of one instance: delete its pod (normal grace: a clean shutdown). */
async function restartInstance(
  ctx: OperationContext,
  step: StepInput,
  instance: string,
  reason: string,
): Promise<Acted> {
  const pod = step.pods.find(p => p.metadata?.name === instance);
  if (!step.isLeader() || !pod) return { writes: 0, busy: false };
  await ctx.cluster.recordEvent(ctx.db, {
    type: "Normal",
    reason: "InstanceRestarting",
    message: `Restarting ${instance}: ${reason}`,
  });
  await ctx.cluster.delete(refOf(pod));
  return { writes: 2, busy: true, requeueAfterMs: 2000 };
}

async function beginOperation(
  ctx: OperationContext,
  step: StepInput,
  decision: Extract<Decision, { kind: "failover" | "switchover" }>,
): Promise<Acted> {
  if (!step.isLeader()) return { writes: 0, busy: false };
  const requested = decision.kind === "switchover" && decision.requested;
  const op = await startOperation(ctx, {
    type: decision.kind === "failover" ? "Failover" : "Switchover",
    from: step.primary,
    to: decision.to,
    reason: decision.reason,
    ...(requested ? { requested: true } : {}),
  });
  const result = await runOperation(ctx, op);
  return {
    writes: result.writes + 2,
    requeueAfterMs: result.requeueAfterMs,
    busy: !result.done,
    operationDone: result.done,
  };
}

/** Parameters that could not be applied are tried again this often. */
export const PARAMETERS_RETRY_MS = 10_000;

/** One Event per distinct message: a refused failover is re-evaluated every 2 s. */
async function announceOnce(
  { announced }: HaMemory,
  ctx: Pick<OperationContext, "db" | "cluster">,
  type: "Normal" | "Warning",
  reason: string,
  message: string,
): Promise<void> {
  const key = `${keyOf(ctx.db)}/${reason}`;
  if (announced.get(key) === message) return;
  announced.set(key, message);
  await ctx.cluster.recordEvent(ctx.db, { type, reason, message });
}

/**
 * ALTER SYSTEM + reload on every answering instance whose pod has not yet got the current set
 * (remembered per pod UID, so a steady state makes no SQL writes).
 */
async function applyParameters(
  step: StepInput,
  instances: InstanceView[],
  records: Map<string, ProbeRecord>,
): Promise<{ writes: number; error?: string }> {
  const desired = Object.fromEntries(managedParameters(step.input.spec));
  const wanted = JSON.stringify(desired);
  const { appliedParameters } = step.ha.memory;
  let writes = 0;
  const errors: string[] = [];
  for (const view of instances) {
    const target = configurable(step, view, records);
    if (!target || appliedParameters.get(target.uid) === wanted) continue;
    try {
      const applied = await applyOn(step, view.name, target.ip, desired);
      writes += applied.writes;
      appliedParameters.set(target.uid, wanted);
      step.ha.memory.pendingAfterReload.set(target.uid, {
        pending: applied.pendingRestart,
        postmasterStartTime: records.get(view.name)?.probe?.postmasterStartTime,
      });
    } catch (err) {
      // Never fatal: a failing instance (or a bad value) must not stop failover or the others.
      errors.push(`${view.name}: ${errorMessage(err)}`);
    }
  }
  const error = errors.length ? errors.join("; ") : undefined;
  if (error) await announceOnce(step.ha.memory, step, "Warning", "ParametersNotApplied", error);
  return { writes, error };
}

async function applyOn(
  step: StepInput,
  instance: string,
  ip: string,
  desired: Record<string, string>,
): Promise<{ writes: number; pendingRestart: string[] }> {
  const result = await step.ha.sql.applyParameters(
    { host: ip, port: POSTGRES_PORT, password: step.password },
    desired,
  );
  const pendingRestart = result.pendingRestart;
  if (!result.changed) return { writes: 0, pendingRestart };
  const pending = result.pendingRestart.length
    ? `; pending restart: ${result.pendingRestart.join(", ")}`
    : "";
  await step.cluster.recordEvent(step.db, {
    type: "Normal",
    reason: "ParametersApplied",
    message: `${instance}: parameters reloaded${pending}`,
  });
  return { writes: 2, pendingRestart };
}

/** The pod of an instance that answers SQL and is not going away, with its address. */
function configurable(
  step: StepInput,
  view: InstanceView,
  records: Map<string, ProbeRecord>,
): { uid: string; ip: string } | undefined {
  const pod = step.pods.find(p => p.metadata?.name === view.name);
  const ip = pod && podIP(pod);
  if (!pod || !ip || pod.metadata?.deletionTimestamp || !records.get(view.name)?.ok)
    return undefined;
  return { uid: pod.metadata?.uid ?? "", ip };
}

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

/** status.instances, pendingRestart and the synchronous set from the pods and the probes. */
function instanceStatus(
  instances: InstanceView[],
  primary: string,
  db: Database,
  updateRevision: string | undefined,
): HaResult["status"] {
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
