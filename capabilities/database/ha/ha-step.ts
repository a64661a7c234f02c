/**
 * The high-availability step of reconcile: feeds the monitor the pods to probe, continues an
 * operation in progress or starts the one `decide` asks for, applies the managed parameters live,
 * and returns what status should show about the instances.
 */
import { Database } from "../api/database";
import { DatabaseStatus, InstanceStatus } from "../api/database-schema";
import { ANNOTATION_SWITCHOVER } from "../api/names";
import { managedParameters } from "../specs/postgresql-conf";
import { BuildInput } from "../specs";
import { POSTGRES_PORT } from "../specs/layout";
import { Cluster, KubeObject, refOf } from "../reconcile/cluster";
import { Decision, HaInput, InstanceView, decide, primaryFailure } from "./decide";
import { lagBytes } from "./lsn-compare";
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
  appliedParameters: Map<string, string>;
  announced: Map<string, string>;
}

export const newHaMemory = (): HaMemory => ({
  downSince: new Map(),
  appliedParameters: new Map(),
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

function views(
  pods: KubeObject[],
  records: Map<string, ProbeRecord>,
  primary: string,
): InstanceView[] {
  const result: InstanceView[] = pods.map(pod => {
    const name = pod.metadata?.name ?? "";
    const record = records.get(name);
    return {
      name,
      ordinal: ordinalOf(name),
      pod: {
        uid: pod.metadata?.uid ?? "",
        ready: isReady(pod) && !pod.metadata?.deletionTimestamp,
        terminating: !!pod.metadata?.deletionTimestamp,
        revision: pod.metadata?.labels?.["controller-revision-hash"],
      },
      ...(record && record.uid === pod.metadata?.uid
        ? { sql: { ok: record.ok, failures: record.failures, probe: record.probe } }
        : {}),
    };
  });
  if (!result.some(v => v.name === primary))
    result.push({ name: primary, ordinal: ordinalOf(primary) });
  return result.sort((a, b) => a.ordinal - b.ordinal);
}

export async function haStep(
  step: StepInput,
  updateRevision: string | undefined,
): Promise<HaResult> {
  const { db, ha } = step;
  const key = keyOf(db);
  const targets = step.pods
    .filter(p => !p.metadata?.deletionTimestamp && podIP(p))
    .map(p => ({ name: p.metadata?.name ?? "", uid: p.metadata?.uid ?? "", ip: podIP(p)! }));
  ha.monitor.track(key, targets, step.password);
  const records = ha.monitor.view(key);
  const instanceViews = views(step.pods, records, step.primary);
  const ctx: OperationContext = {
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

  const running = db.status?.operation;
  if (running) {
    const result = await runOperation(ctx, running);
    const primary = result.done ? running.to : step.primary;
    return {
      ...result,
      status: instanceStatus(instanceViews, primary, db),
      primary,
      busy: !result.done,
    };
  }

  const spec = step.input.spec;
  const haInput: HaInput = {
    spec,
    primary: step.primary,
    instances: instanceViews,
    updateRevision,
    synchronousStandbys: db.status?.synchronousStandbys ?? [],
    switchoverRequest: db.metadata?.annotations?.[ANNOTATION_SWITCHOVER],
    wasUp: db.status?.phase === "Ready" || db.status?.phase === "Degraded",
    primaryDownSince: trackDownSince(
      ha.memory.downSince,
      key,
      primaryFailure(baseInput(step, instanceViews)),
      step.now().getTime(),
    ),
    now: step.now().getTime(),
    failureThreshold: ha.failureThreshold,
  };
  const decision = decide(haInput);
  const acted = await act(ctx, decision, step);
  if (acted.operationDone) {
    ha.memory.downSince.delete(key);
    const primary = db.status?.currentPrimary ?? step.primary;
    return {
      writes: acted.writes,
      status: instanceStatus(instanceViews, primary, db),
      primary,
      busy: false,
    };
  }
  const configWrites = await applyParameters(step, instanceViews, records);
  return {
    writes: acted.writes + configWrites,
    requeueAfterMs: acted.requeueAfterMs,
    status: instanceStatus(instanceViews, step.primary, db),
    primary: step.primary,
    busy: acted.busy,
  };
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
    case "restart": {
      if (!step.isLeader()) return { writes: 0, busy: false };
      const pod = step.pods.find(p => p.metadata?.name === decision.instance);
      if (!pod) return { writes: 0, busy: false };
      await cluster.recordEvent(db, {
        type: "Normal",
        reason: "InstanceRestarting",
        message: `Restarting ${decision.instance}: ${decision.reason}`,
      });
      await cluster.delete(refOf(pod));
      return { writes: 2, busy: true, requeueAfterMs: 2000 };
    }
    case "failover":
    case "switchover": {
      if (!step.isLeader()) return { writes: 0, busy: false };
      const op = await startOperation(ctx, {
        type: decision.kind === "failover" ? "Failover" : "Switchover",
        from: step.primary,
        to: decision.to,
        reason: decision.reason,
        ...(decision.kind === "switchover" && decision.requested ? { requested: true } : {}),
      });
      const result = await runOperation(ctx, op);
      return {
        writes: result.writes + 2,
        requeueAfterMs: result.requeueAfterMs,
        busy: !result.done,
        operationDone: result.done,
      };
    }
  }
}

/** One Event per distinct message: a refused failover is re-evaluated every 2 s. */
async function announceOnce(
  { announced }: HaMemory,
  ctx: OperationContext,
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
): Promise<number> {
  const desired = Object.fromEntries(managedParameters(step.input.spec));
  const wanted = JSON.stringify(desired);
  let changed = 0;
  for (const view of instances) {
    const pod = step.pods.find(p => p.metadata?.name === view.name);
    const ip = pod && podIP(pod);
    if (!pod || !ip || !records.get(view.name)?.ok || pod.metadata?.deletionTimestamp) continue;
    const memo = `${pod.metadata?.uid}`;
    const { appliedParameters } = step.ha.memory;
    if (appliedParameters.get(memo) === wanted) continue;
    const result = await step.ha.sql.applyParameters(
      { host: ip, port: POSTGRES_PORT, password: step.password },
      desired,
    );
    appliedParameters.set(memo, wanted);
    if (result.changed) {
      changed++;
      await step.cluster.recordEvent(step.db, {
        type: "Normal",
        reason: "ParametersApplied",
        message: `${view.name}: parameters reloaded${result.pendingRestart.length ? `; pending restart: ${result.pendingRestart.join(", ")}` : ""}`,
      });
    }
  }
  return changed;
}

/** status.instances, pendingRestart and the synchronous set from the pods and the probes. */
function instanceStatus(
  instances: InstanceView[],
  primary: string,
  db: Database,
): HaResult["status"] {
  const primaryProbe = instances.find(i => i.name === primary)?.sql?.probe;
  const syncNames = (primaryProbe?.standbys ?? [])
    .filter(s => s.syncState === "sync" || s.syncState === "quorum")
    .map(s => s.name)
    .sort();
  const primaryLsn = primaryProbe && !primaryProbe.inRecovery ? primaryProbe.lsn : undefined;
  const list: InstanceStatus[] = instances
    .filter(i => i.pod)
    .map(i => {
      const probe = i.sql?.probe;
      const answering = !!i.sql?.ok && !!probe;
      const pending = answering ? probe.pendingRestart : [];
      return {
        name: i.name,
        role: i.name === primary ? "primary" : "replica",
        ready: !!i.pod?.ready,
        ...(answering ? { timeline: probe.timeline, lsn: probe.lsn } : {}),
        ...(answering && i.name !== primary
          ? {
              lagBytes: lagBytes(primaryLsn, probe.lsn),
              streaming: probe.walReceiverStatus === "streaming",
              synchronous: syncNames.includes(i.name),
            }
          : {}),
        ...(pending.length ? { pendingRestart: pending } : {}),
      };
    });
  const pendingRestart = [...new Set(list.flatMap(i => i.pendingRestart ?? []))].sort();
  const primaryAnswers = instances.find(i => i.name === primary)?.sql?.ok;
  return {
    instances: list,
    pendingRestart,
    synchronousStandbys: primaryAnswers ? syncNames : (db.status?.synchronousStandbys ?? []),
  };
}
