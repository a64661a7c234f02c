/**
 * The high-availability step of reconcile: feeds the monitor the pods to probe, continues an
 * operation in progress or starts the one `decide` asks for, applies the managed parameters live,
 * and returns what status should show about the instances (as values; reconcile's writer stores
 * them). An operation records its own steps through the same writer, before acting.
 */
import { Database } from "../api/database";
import { DatabaseStatus, InstanceStatus } from "../api/database-schema";
import {
  ANNOTATION_SWITCHOVER,
  LABEL_ROLE,
  ROLE_REPLICA,
  databaseKey,
  ordinalOf,
} from "../api/names";
import { Cluster, KubeObject, isPodReady, isTerminating, podIP, refOf } from "../cluster/cluster";
import { DatabaseWriter } from "../cluster/database-writer";
import { errorMessage } from "../lib/errors";
import { parseQuantity } from "../lib/quantity";
import { BuildInput } from "../specs";
import { POSTGRES_PORT } from "../specs/layout";
import { instanceParameters } from "../specs/postgresql-conf";
import {
  Decision,
  HaInput,
  InstanceView,
  decide,
  failoverCandidate,
  needsRestart,
  primaryFailure,
  stillMoving,
} from "./decide";
import { lagBytes } from "./lsn";
import { DatabaseMemory, HaMemory, PendingAfterReload } from "./memory";
import { ProbeRecord } from "./monitor";
import { OperationContext, runOperation, startOperation } from "./operation";
import { notServingReason } from "./serving";
import type { InstanceSql } from "./probe-types";

/** What reconcile needs from the HA machinery (absent: no SQL, no failover; unit tests). */
export interface HaDeps {
  monitor: {
    track(
      key: string,
      targets: { name: string; uid: string; ip: string }[],
      password: string,
      maxLagBytes?: number,
    ): void;
    view(key: string): Map<string, ProbeRecord>;
    untrack?(key: string): void;
    untrackAll?(): void;
  };
  sql: InstanceSql;
  failureThreshold: number;
  /** Pause between the two probe rounds after a fence (SETTLE_MS); tests set 0. */
  settleMs?: number;
  onFailover?: (namespace: string, name: string, seconds: number) => void;
  /** The controller's memory across reconciles. */
  memory: HaMemory;
}

export interface HaResult {
  requeueAfterMs?: number;
  /** Status fields the HA step owns, merged by reconcile into the status it writes. */
  status: Pick<DatabaseStatus, "instances" | "pendingRestart" | "synchronousStandbys">;
  /** The primary after this step (changes when an operation completed). */
  primary: string;
  /** An operation is running: reconcile must not relabel pods or recompute the phase. */
  busy: boolean;
  /** Why the managed parameters could not be applied everywhere (undefined: they were). */
  parametersError?: string;
  /** Replicas that must not serve reads through `<db>-ro`, with the reason. */
  notServing: Record<string, string>;
}

export interface HaStepInput {
  cluster: Cluster;
  ha: HaDeps;
  db: Database;
  input: BuildInput;
  primary: string;
  pods: KubeObject[];
  password: string;
  now: () => Date;
  isLeader: () => boolean;
  /** StatefulSet status.updateRevision, when its controller has seen our latest template. */
  updateRevision?: string;
  /** Reconcile's apply path for a desired child (the topology ConfigMap while fencing). */
  applyChild: (child: KubeObject) => Promise<void>;
  /** The pass's one writer of the Database. */
  writer: DatabaseWriter;
}

/** A Database is gone: stop probing it and drop what was remembered of it. */
export function forgetHa(ha: HaDeps, key: string): void {
  ha.monitor.untrack?.(key);
  ha.memory.forget(key);
}

/** Leadership lost: stop probing old pod IPs, and forget what this leadership learnt. */
export function stopHa(ha: HaDeps): void {
  ha.monitor.untrackAll?.();
  ha.memory.clear();
}

/** Parameters that could not be applied are tried again this often. */
const PARAMETERS_RETRY_MS = 10_000;
/** A refused failover is looked at again this often. */
const FAILOVER_RETRY_MS = 2000;

function viewOf(
  pod: KubeObject,
  records: Map<string, ProbeRecord>,
  reloads: DatabaseMemory["pendingAfterReload"],
): InstanceView {
  const name = pod.metadata?.name ?? "";
  const record = records.get(name);
  const view: InstanceView = {
    name,
    ordinal: ordinalOf(name),
    pod: {
      uid: pod.metadata?.uid ?? "",
      ready: isPodReady(pod),
      terminating: isTerminating(pod),
      revision: pod.metadata?.labels?.["controller-revision-hash"],
    },
  };
  if (record && record.uid === pod.metadata?.uid)
    view.sql = { ok: record.ok, failures: record.failures, probe: record.probe };
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
  const result = pods.map(pod => viewOf(pod, records, memory.pendingAfterReload));
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
    sql: ha.sql,
    db,
    input: step.input,
    pods: step.pods,
    password: step.password,
    port: POSTGRES_PORT,
    now: step.now,
    isLeader: step.isLeader,
    applyChild: step.applyChild,
    writer: step.writer,
    onFailover: s => ha.onFailover?.(db.metadata?.namespace ?? "", db.metadata?.name ?? "", s),
    failoverTarget: preferred => failoverTargetNow(step, instances, memory, preferred),
  };
}

/** Probe timeout once the primary is fenced: idle standbys answer at once, or are not eligible. */
const FRESH_PROBE_TIMEOUT_MS = 3000;
/**
 * Between the two rounds of probes after the fence. With the primary fenced no standby receives
 * anything, so a position that still moves is a standby replaying WAL it already has (one that
 * just restarted: until it streams again, it reports its replay position, short of what is on its
 * disk). Comparing such a position would promote a standby with less WAL than another.
 */
const SETTLE_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

/**
 * failoverCandidate on probes taken now (the old primary is fenced). A standby that does not
 * answer now is not eligible; a refusal is announced once.
 */
async function failoverTargetNow(
  step: HaStepInput,
  instances: InstanceView[],
  memory: DatabaseMemory,
  preferred: string,
): Promise<{ to: string } | { refused: string }> {
  const first = await Promise.all(instances.map(view => probedNow(step, view)));
  await sleep(step.ha.settleMs ?? SETTLE_MS);
  const fresh = await Promise.all(instances.map(view => probedNow(step, view)));
  const moving = stillMoving(first, fresh);
  const choice =
    moving.length > 0
      ? { refused: `${moving.join(", ")} still replaying WAL (positions not settled)` }
      : failoverCandidate(haInput(step, fresh), preferred);
  if ("refused" in choice)
    await announceOnce(
      memory,
      { db: step.db, cluster: step.cluster },
      "Warning",
      "FailoverWaiting",
      `${step.primary} is fenced, but ${choice.refused}; waiting before promoting anyone`,
    );
  return choice;
}

async function probedNow(step: HaStepInput, view: InstanceView): Promise<InstanceView> {
  const pod = step.pods.find(p => p.metadata?.name === view.name);
  const ip = podIP(pod);
  if (view.name === step.primary || !pod || !ip || isTerminating(pod)) return view;
  const target = { host: ip, port: POSTGRES_PORT, password: step.password };
  try {
    const probe = await step.ha.sql.probeInstance(target, FRESH_PROBE_TIMEOUT_MS);
    return { ...view, sql: { ok: true, failures: 0, probe } };
  } catch {
    return { ...view, sql: { ok: false, failures: (view.sql?.failures ?? 0) + 1 } };
  }
}

function haInput(step: HaStepInput, instances: InstanceView[]): HaInput {
  const { db } = step;
  const phase = db.status?.phase;
  return {
    spec: step.input.spec,
    primary: step.primary,
    instances,
    updateRevision: step.updateRevision,
    synchronousStandbys: db.status?.synchronousStandbys ?? [],
    switchoverRequest: db.metadata?.annotations?.[ANNOTATION_SWITCHOVER],
    wasUp: phase === "Ready" || phase === "Degraded",
    now: step.now().getTime(),
    failureThreshold: step.ha.failureThreshold,
  };
}

function haInputOf(step: HaStepInput, instances: InstanceView[], memory: DatabaseMemory): HaInput {
  const input = haInput(step, instances);
  const now = input.now;
  // Since when the primary has been failing: kept across reconciles, cleared once it is healthy.
  if (!primaryFailure(input)) memory.downSince = undefined;
  else memory.downSince ??= now;
  return { ...input, primaryDownSince: memory.downSince };
}

/** The pods the monitor probes: those with an address that are not going away. */
const probeTargets = (pods: KubeObject[]) =>
  pods
    .filter(p => !isTerminating(p) && podIP(p))
    .map(p => ({ name: p.metadata?.name ?? "", uid: p.metadata?.uid ?? "", ip: podIP(p) ?? "" }));

const keyOf = (db: Database): string =>
  databaseKey(db.metadata?.namespace ?? "", db.metadata?.name ?? "");

export async function haStep(step: HaStepInput): Promise<HaResult> {
  const { db, ha } = step;
  const key = keyOf(db);
  ha.memory.keepPods(key, new Set(step.pods.map(p => p.metadata?.uid ?? "")));
  const memory = ha.memory.of(key);
  const maxLag = parseQuantity(step.input.spec.readOnly.maxLag);
  ha.monitor.track(key, probeTargets(step.pods), step.password, maxLag);
  const records = ha.monitor.view(key);
  const instanceViews = views(step.pods, records, step.primary, memory);
  const ctx = operationContext(step, instanceViews, memory);
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
    };
  };

  const running = db.status?.operation;
  if (running) {
    const { primary, ...done } = await runOperation(ctx, running);
    if (primary) await followNewPrimary(step, primary, instanceViews, records, memory);
    return result(primary ?? step.primary, { ...done, busy: !done.done });
  }
  const acted = await act(ctx, decide(haInputOf(step, instanceViews, memory)), step, memory);
  if (acted.operationDone) {
    memory.downSince = undefined;
    const primary = step.writer.status?.currentPrimary ?? step.primary;
    await followNewPrimary(step, primary, instanceViews, records, memory);
    return result(primary, { busy: false });
  }
  const config = await applyParameters(step, step.primary, instanceViews, records, memory);
  return result(step.primary, {
    requeueAfterMs: config.error
      ? Math.min(acted.requeueAfterMs ?? Infinity, PARAMETERS_RETRY_MS)
      : acted.requeueAfterMs,
    busy: acted.busy,
    ...(config.error ? { parametersError: config.error } : {}),
  });
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
  if (!step.isLeader() || !pod) return { busy: false };
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
  if (!step.isLeader()) return { busy: false };
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

/** One Event per distinct message: a refused failover is re-evaluated every 2 s. */
async function announceOnce(
  memory: DatabaseMemory,
  ctx: Pick<OperationContext, "db" | "cluster">,
  type: "Normal" | "Warning",
  reason: string,
  message: string,
): Promise<void> {
  if (memory.announced.get(reason) === message) return;
  memory.announced.set(reason, message);
  await ctx.cluster.recordEvent(ctx.db, { type, reason, message });
}

/**
 * Right after a failover or switchover, in the same pass: every standby gets primary_conninfo
 * naming the new primary, so its WAL receiver reconnects now rather than when a connection to
 * the old one times out. Errors are reported by the next pass, which applies again.
 */
async function followNewPrimary(
  step: HaStepInput,
  primary: string,
  instances: InstanceView[],
  records: Map<string, ProbeRecord>,
  memory: DatabaseMemory,
): Promise<void> {
  if (step.isLeader()) await applyParameters(step, primary, instances, records, memory);
}

/**
 * ALTER SYSTEM + reload on every answering instance whose pod has not yet got its current set
 * (remembered per pod UID, so a steady state makes no SQL writes).
 */
async function applyParameters(
  step: HaStepInput,
  primary: string,
  instances: InstanceView[],
  records: Map<string, ProbeRecord>,
  memory: DatabaseMemory,
): Promise<{ error?: string }> {
  const errors: string[] = [];
  for (const view of instances) {
    const target = configurable(step, view, records);
    if (!target) continue;
    const desired = instanceParameters(step.input, view.name, primary);
    const wanted = JSON.stringify(desired);
    if (memory.appliedParameters.get(target.uid) === wanted) continue;
    try {
      const pending = await applyOn(step, view.name, target.ip, desired);
      memory.appliedParameters.set(target.uid, wanted);
      memory.pendingAfterReload.set(target.uid, {
        pending,
        postmasterStartTime: records.get(view.name)?.probe?.postmasterStartTime,
      });
    } catch (err) {
      // Never fatal: a failing instance (or a bad value) must not stop failover or the others.
      errors.push(`${view.name}: ${errorMessage(err)}`);
    }
  }
  const error = errors.length ? errors.join("; ") : undefined;
  if (error) await announceOnce(memory, step, "Warning", "ParametersNotApplied", error);
  return { error };
}

/** Applies the set on one instance; returns what it left pending restart. */
async function applyOn(
  step: HaStepInput,
  instance: string,
  ip: string,
  desired: Record<string, string>,
): Promise<string[]> {
  const result = await step.ha.sql.applyParameters(
    { host: ip, port: POSTGRES_PORT, password: step.password },
    desired,
  );
  if (result.changed) {
    const pending = result.pendingRestart.length
      ? `; pending restart: ${result.pendingRestart.join(", ")}`
      : "";
    await step.cluster.recordEvent(step.db, {
      type: "Normal",
      reason: "ParametersApplied",
      message: `${instance}: parameters reloaded${pending}`,
    });
  }
  return result.pendingRestart;
}

/** The pod of an instance that answers SQL and is not going away, with its address. */
function configurable(
  step: HaStepInput,
  view: InstanceView,
  records: Map<string, ProbeRecord>,
): { uid: string; ip: string } | undefined {
  const pod = step.pods.find(p => p.metadata?.name === view.name);
  const ip = podIP(pod);
  if (!pod || !ip || isTerminating(pod) || !records.get(view.name)?.ok) return undefined;
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

/** The replicas that must not serve reads, each with the reason (see serving.ts). */
function readServing(
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
function instanceStatus(
  instances: InstanceView[],
  primary: string,
  db: Database,
  updateRevision: string | undefined,
  notServing: Record<string, string>,
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
      ...(i.name === primary ? {} : servingFields(notServing[i.name])),
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
