/**
 * Reconcile one Database: an ordered list of small steps, level-based and idempotent. The same
 * input gives the same children and no writes; every failure surfaces in status and Events.
 *
 * Order: deletion → paused → spec validity → secrets (stored passwords) → children → prune →
 * pod roles → status. Guards that must stop everything come first.
 */
import { Database } from "../api/database";
import { ResolvedSpec, withDefaults } from "../api/defaults";
import { DatabaseStatus } from "../api/database-schema";
import { OperatorConfig, defaultImageFor } from "../lib/config";
import { desiredChildren, obsoleteChildren } from "../specs";
import { ChildResult, convergeChild, pruneChild } from "./children";
import { Cluster, EventInput, KubeObject, describeRef } from "./cluster";
import { findCondition } from "./conditions";
import { withAppliedHash } from "./diff";
import { ReconcileError } from "./errors";
import { ensurePasswords, generatePassword } from "./passwords";
import { labelRoles, listInstancePods, observePods, primaryOf } from "./pods";
import { Failure, convergedStatus, failedStatus, pausedStatus, statusPatch } from "./status";
import { HaDeps, HaResult, haStep } from "../ha/ha-step";
import { PROGRESS_REFRESH_MS, mergeHaStatus } from "../ha/ha-status";
import { BuildInput, Passwords } from "../specs";
import { buildInput } from "./build-input";

/** The finalizer Pepr's Finalize binding adds; reconcile removes it too (see deletion.ts). */
export const PEPR_FINALIZER = "pepr.dev/finalizer";

export interface Denial {
  field: string;
  message: string;
}

export interface ReconcileDeps {
  cluster: Cluster;
  config: OperatorConfig;
  now: () => Date;
  /** Same rules as the validating webhook: a Database admitted while it was down is still checked. */
  validate: (db: Database) => Denial[];
  newPassword?: () => string;
  /** Cleanup shared with Pepr's Finalize callback. */
  onDeleted?: (db: Database) => Promise<void>;
  /** SQL probing, failover, switchover, live parameters; absent in tests of the other steps. */
  ha?: HaDeps;
  /**
   * Whether this process holds the leader Lease (absent: always). Steps that act on PostgreSQL
   * (failover, promotion, fencing) check it right before acting.
   */
  isLeader?: () => boolean;
}

export interface ReconcileReport {
  /** Mutating API calls made (0 once converged). */
  writes: number;
  /** The Database no longer exists. */
  gone?: boolean;
  requeueAfterMs?: number;
}

/** While instances are starting, look again even if no watch event arrives. */
export const NOT_READY_REQUEUE_MS = 15_000;

export async function reconcile(
  deps: ReconcileDeps,
  namespace: string,
  name: string,
): Promise<ReconcileReport> {
  const db = await deps.cluster.getDatabase(namespace, name);
  if (!db) return { writes: 0, gone: true }; // garbage collection removes the children
  if (db.metadata?.deletionTimestamp) return handleDeletion(deps, db);
  if (db.spec?.paused === true)
    return {
      writes: await writeStatus(deps, db, pausedStatus(db.status, generation(db), deps.now())),
    };
  const denials = deps.validate(db);
  if (denials.length > 0) return rejectSpec(deps, db, denials);
  const spec = withDefaults(db.spec!, version => defaultImageFor(version, deps.config));
  return converge(deps, db, spec);
}

const generation = (db: Database): number => db.metadata?.generation ?? 0;

async function converge(
  deps: ReconcileDeps,
  db: Database,
  spec: ResolvedSpec,
): Promise<ReconcileReport> {
  const { cluster } = deps;
  const passwords = await ensurePasswords(cluster, db, deps.newPassword ?? generatePassword);
  const input = buildInput(db, spec);
  const childWrites = await convergeChildren(deps, db, input, passwords);
  const pods = await listInstancePods(cluster, db);
  const ha = await runHa(deps, db, input, pods, passwords.superuser);
  const primary = ha?.primary ?? primaryOf(db);
  const relabelled = ha?.busy ? 0 : await labelRoles(cluster, pods, primary);
  const observation = {
    generation: generation(db),
    desiredInstances: spec.instances,
    primary,
    pods: observePods(pods),
  };
  const next = withHa(deps, db, convergedStatus(db.status, observation, deps.now()), ha);
  const statusWrites = await writeStatus(deps, db, next);
  await announceReady(deps, db, next, spec.instances);
  const requeue = Math.min(
    ha?.requeueAfterMs ?? Infinity,
    next.phase === "Ready" ? Infinity : NOT_READY_REQUEUE_MS,
  );
  return {
    writes: childWrites + relabelled + statusWrites + (ha?.writes ?? 0),
    ...(Number.isFinite(requeue) ? { requeueAfterMs: requeue } : {}),
  };
}

async function announceReady(
  deps: ReconcileDeps,
  db: Database,
  next: DatabaseStatus,
  instances: number,
): Promise<void> {
  if (next.phase !== "Ready" || db.status?.phase === "Ready") return;
  await deps.cluster.recordEvent(db, {
    type: "Normal",
    reason: "DatabaseReady",
    message: `All ${instances} instances are ready`,
  });
}

/** Applies what differs, prunes what must not exist, announces changes; returns the writes. */
async function convergeChildren(
  deps: ReconcileDeps,
  db: Database,
  input: BuildInput,
  passwords: Passwords,
): Promise<number> {
  const results: ChildResult[] = [];
  for (const child of desiredChildren(input, passwords)) {
    results.push(await convergeChild(deps.cluster, db, withAppliedHash(child)));
  }
  for (const ref of obsoleteChildren(input)) {
    results.push(
      await pruneChild(deps.cluster, db, { ...ref, namespace: db.metadata?.namespace ?? "" }),
    );
  }
  const changed = results.filter(r => r.change !== "none");
  await announceChanges(deps, db, changed);
  return changed.length;
}

async function runHa(
  deps: ReconcileDeps,
  db: Database,
  input: BuildInput,
  pods: KubeObject[],
  password: string,
): Promise<HaResult | undefined> {
  if (!deps.ha) return undefined;
  return haStep(
    {
      cluster: deps.cluster,
      ha: deps.ha,
      db,
      input,
      primary: primaryOf(db),
      pods,
      password,
      now: deps.now,
      isLeader: deps.isLeader ?? (() => true),
    },
    await updateRevisionOf(deps, db),
  );
}

/** StatefulSet status.updateRevision once its controller has seen our latest template. */
async function updateRevisionOf(deps: ReconcileDeps, db: Database): Promise<string | undefined> {
  const sts = await deps.cluster.get({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    namespace: db.metadata?.namespace ?? "",
    name: db.metadata?.name ?? "",
  });
  const status = sts?.status as
    | { observedGeneration?: number; updateRevision?: string }
    | undefined;
  if (!sts || status?.observedGeneration !== sts.metadata?.generation) return undefined;
  return status?.updateRevision;
}

function withHa(
  deps: ReconcileDeps,
  db: Database,
  next: DatabaseStatus,
  ha: HaResult | undefined,
): DatabaseStatus {
  if (!ha || !deps.ha) return next;
  const key = `${db.metadata?.namespace}/${db.metadata?.name}`;
  const now = deps.now().getTime();
  const { progressWrittenAt } = deps.ha.memory;
  const stale = now - (progressWrittenAt.get(key) ?? 0) >= PROGRESS_REFRESH_MS;
  const merged = mergeHaStatus(next, ha, db.status, stale, deps.now());
  if (merged.progressWritten) progressWrittenAt.set(key, now);
  return merged.status;
}

/** One Event per kind of change, listing the objects: sparse, and readable in `kubectl describe`. */
async function announceChanges(
  deps: ReconcileDeps,
  db: Database,
  changed: ChildResult[],
): Promise<void> {
  const groups: [ChildResult["change"], EventInput["reason"], string][] = [
    ["create", "ChildrenCreated", "Created"],
    ["update", "ChildrenUpdated", "Updated to the new spec"],
    ["drift", "DriftRepaired", "Repaired (changed outside pgkeeper)"],
    ["deleted", "ChildrenDeleted", "Deleted (no longer needed)"],
  ];
  for (const [change, reason, verb] of groups) {
    const refs = changed.filter(c => c.change === change).map(c => describeRef(c.ref));
    if (refs.length > 0)
      await deps.cluster.recordEvent(db, {
        type: "Normal",
        reason,
        message: `${verb}: ${refs.join(", ")}`,
      });
  }
}

/** Writes status when it changed; returns the number of writes (0 or 1). */
async function writeStatus(
  deps: ReconcileDeps,
  db: Database,
  next: DatabaseStatus,
): Promise<number> {
  const patch = statusPatch(db.status, next);
  if (!patch) return 0;
  await deps.cluster.patchStatus(db, patch);
  return 1;
}

async function rejectSpec(
  deps: ReconcileDeps,
  db: Database,
  denials: Denial[],
): Promise<ReconcileReport> {
  const message = denials.map(d => d.message).join("; ");
  const failure: Failure = { reason: "InvalidSpec", message, attempts: 0, permanent: true };
  return { writes: await recordFailureOn(deps, db, failure) };
}

/**
 * Records a failed reconcile in status (condition, retry info) and, when the reason or message
 * is new, as a Warning Event. Called by the controller after the queue scheduled the retry.
 */
export async function recordFailure(
  deps: ReconcileDeps,
  key: { namespace: string; name: string },
  error: unknown,
  attempts: number,
  retryInMs: number | undefined,
): Promise<void> {
  const db = await deps.cluster.getDatabase(key.namespace, key.name);
  if (!db || db.metadata?.deletionTimestamp) return;
  const failure: Failure = {
    reason: error instanceof ReconcileError ? error.reason : "ReconcileFailed",
    message: error instanceof Error ? error.message : String(error),
    attempts,
    ...(retryInMs !== undefined
      ? { nextRetryTime: new Date(deps.now().getTime() + retryInMs) }
      : {}),
  };
  await recordFailureOn(deps, db, failure);
}

async function recordFailureOn(
  deps: ReconcileDeps,
  db: Database,
  failure: Failure,
): Promise<number> {
  const previous = findCondition(db.status?.conditions, "Reconciled");
  const writes = await writeStatus(
    deps,
    db,
    failedStatus(db.status, failure, generation(db), deps.now()),
  );
  if (previous?.reason !== failure.reason || previous?.message !== failure.message) {
    await deps.cluster.recordEvent(db, {
      type: "Warning",
      reason: failure.reason,
      message: failure.message,
    });
  }
  return writes;
}

/**
 * Deletion: children go by garbage collection (owner references). Our part is the cleanup hook
 * and removing Pepr's finalizer ourselves, because Pepr only runs Finalize for MODIFIED events:
 * a Database deleted while the operator was down arrives as ADDED and would stay stuck.
 */
async function handleDeletion(deps: ReconcileDeps, db: Database): Promise<ReconcileReport> {
  if (!db.metadata?.finalizers?.includes(PEPR_FINALIZER)) return { writes: 0 };
  await deps.onDeleted?.(db);
  await deps.cluster.removeFinalizer(db, PEPR_FINALIZER);
  return { writes: 1 };
}
