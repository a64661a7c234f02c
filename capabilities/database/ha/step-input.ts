/**
 * What the HA step works from: its dependencies, one pass's input, the decision input built from
 * them, and the one-Event-per-message rule its parts share.
 */
import type { ArchiverState } from "../instance/types";
import { Database } from "../api/database";
import { ANNOTATION_SWITCHOVER } from "../api/names";
import { Cluster, KubeObject } from "../cluster/cluster";
import { DatabaseWriter } from "../cluster/database-writer";
import { BuildInput } from "../specs";
import { HaInput, InstanceView } from "./decide";
import { DatabaseMemory, HaMemory } from "./memory";
import type { MonitorPort } from "../instance/port";
import type { TargetOf } from "../instance/targets";
import type { InstanceSql } from "../instance/types";

/**
 * What reconcile needs from the HA machinery besides the instance port (absent: no failover;
 * unit tests of other steps).
 */
export interface HaDeps {
  failureThreshold: number;
  /** Pause between the two probe rounds after a fence (SETTLE_MS); tests set 0. */
  settleMs?: number;
  onFailover?: (namespace: string, name: string, seconds: number) => void;
  /** The primary's archiving as its last probe saw it (undefined: none, or no object store). */
  onArchiving?: (namespace: string, name: string, archiver: ArchiverState | undefined) => void;
  /** The controller's memory across reconciles. */
  memory: HaMemory;
}

export interface HaStepInput {
  cluster: Cluster;
  /** The SQL edge, its writes fenced by leadership (instance/guard-sql.ts). */
  sql: InstanceSql;
  monitor: MonitorPort;
  ha: HaDeps;
  db: Database;
  input: BuildInput;
  primary: string;
  pods: KubeObject[];
  /** The superuser's password in use (the passfiles of pods from before TLS follow it). */
  password: string;
  /** How to reach the instance at an IP (instance/targets.ts): TLS with the operator's certificate. */
  target: TargetOf;
  now: () => Date;
  /** StatefulSet status.updateRevision, when its controller has seen our latest template. */
  updateRevision?: string;
  /** Reconcile's apply path for a desired child (the topology ConfigMap while fencing). */
  applyChild: (child: KubeObject) => Promise<void>;
  /** The pass's one writer of the Database. */
  writer: DatabaseWriter;
}

/** The decision input of this pass over `instances` (pure: no memory is touched). */
export function haInput(step: HaStepInput, instances: InstanceView[]): HaInput {
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

/** One Event per distinct message: a refused failover is re-evaluated every 2 s. */
export async function announceOnce(
  memory: Pick<DatabaseMemory, "announced">,
  ctx: { db: Database; cluster: Cluster },
  type: "Normal" | "Warning",
  reason: string,
  message: string,
): Promise<void> {
  if (memory.announced.get(reason) === message) return;
  memory.announced.set(reason, message);
  await ctx.cluster.recordEvent(ctx.db, { type, reason, message });
}
