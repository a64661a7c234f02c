/**
 * Reconcile one Database: an ordered list of small steps, level-based and idempotent. The same
 * input gives the same children and no writes; every failure surfaces in status and Events.
 *
 * Order: deletion → paused → spec validity → passwords (from the stored Secrets) → children →
 * pruning → high availability (probes, failover/switchover, rolling restarts, live parameters) →
 * pod role labels → status. Guards that must stop everything come first.
 *
 * Status has one writer per pass (cluster/database-writer): steps return what status should say
 * as values, an operation records its steps through the same writer, and every write carries the
 * resourceVersion of the view it was computed from. Writes are counted at the Cluster port.
 */
import { Database } from "../api/database";
import { ResolvedSpec, withDefaults } from "../api/defaults";
import { DatabaseStatus } from "../api/database-schema";
import { childNames, databaseKey } from "../api/names";
import { Cluster, EventInput, KubeObject, describeRef } from "../cluster/cluster";
import { DatabaseWriter } from "../cluster/database-writer";
import { countWrites } from "../cluster/write-wrappers";
import { HaDeps, HaResult, haStep } from "../ha/ha-step";
import { withHaStatus } from "../ha/ha-status";
import { OperatorConfig, defaultImageFor } from "../lib/config";
import {
  BuildInput,
  Passwords,
  desiredChildren,
  obsoleteChildren,
  postgresDnsNames,
  serverDnsNames,
} from "../specs";
import { ensureBackupTls } from "./backup-tls";
import { OperatorCredentials, targetsFor } from "../instance/targets";
import { ensureTls, operatorTls, withTlsTransition } from "./tls";
import { summarizeBackups } from "./backup-summary";
import { BackupInstances, reconcileBackups, settleBackupsWithoutDatabase } from "./backups";
import { untilNextFireMs } from "./scheduled-backups";
import { repositoryPath } from "../specs/pgbackrest";
import { buildInput } from "./build-input";
import { ChildResult, convergeChild, pruneChild } from "./children";
import { withAppliedHash } from "./diff";
import { recordFailureOn } from "./failure";
import { ReconcileError } from "./errors";
import { RestoredSecret, ensurePasswords, generatePassword, passwordsOrError } from "./passwords";
import { rotatePasswords } from "./rotate-passwords";
import { labelRoles, listInstancePods, observePods, primaryOf } from "./pods";
import { convergedStatus, pausedStatus } from "./status";

/** The finalizer Pepr's Finalize binding added to Databases created by pgkeeper 0.1 and before. */
export const LEGACY_FINALIZER = "pepr.dev/finalizer";

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
  /** SQL probing, failover, switchover, live parameters; absent in tests of the other steps. */
  ha?: HaDeps;
  /**
   * Whether this process holds the leader Lease (absent: always). Steps that act on PostgreSQL
   * (failover, promotion, fencing) check it right before acting.
   */
  isLeader?: () => boolean;
}

export interface ReconcileReport {
  /** Mutating API calls made (0 once converged), counted at the Cluster port. */
  writes: number;
  /** The Database no longer exists. */
  gone?: boolean;
  requeueAfterMs?: number;
}

type Outcome = Omit<ReconcileReport, "writes">;

/** While instances are starting, look again even if no watch event arrives. */
const NOT_READY_REQUEUE_MS = 15_000;

export async function reconcile(
  deps: ReconcileDeps,
  namespace: string,
  name: string,
): Promise<ReconcileReport> {
  const counted = countWrites(deps.cluster);
  const outcome = await reconcileOnce({ ...deps, cluster: counted.cluster }, namespace, name);
  return { writes: counted.writes(), ...outcome };
}

async function reconcileOnce(
  deps: ReconcileDeps,
  namespace: string,
  name: string,
): Promise<Outcome> {
  const db = await deps.cluster.getDatabase(namespace, name);
  if (!db) {
    // Garbage collection removes the children; Backups are not children, and say what became
    // of them.
    await settleBackupsWithoutDatabase(deps.cluster, namespace, name, deps.now());
    return { gone: true };
  }
  if (db.metadata?.deletionTimestamp) return handleDeletion(deps, db);
  const writer = new DatabaseWriter(deps.cluster, db);
  if (db.spec?.paused === true) {
    await writer.write(pausedStatus(db.status, generation(db), deps.now()));
    return {};
  }
  const denials = deps.validate(db);
  if (denials.length > 0) {
    const message = denials.map(d => d.message).join("; ");
    await recordFailureOn(deps, db, writer, {
      reason: "InvalidSpec",
      message,
      attempts: 0,
      permanent: true,
    });
    return {};
  }
  const spec = withDefaults(db.spec!, version => defaultImageFor(version, deps.config));
  return converge(deps, db, spec, writer);
}

const generation = (db: Database): number => db.metadata?.generation ?? 0;

async function converge(
  deps: ReconcileDeps,
  db: Database,
  spec: ResolvedSpec,
  writer: DatabaseWriter,
): Promise<Outcome> {
  const { cluster } = deps;
  const pods = await listInstancePods(cluster, db);
  const found = await passwordsInUse(deps, db, pods);
  const input = withTlsTransition(buildInput(db, spec), pods);
  // High availability must not wait for unrelated children: a quota, a policy engine refusing
  // one object, a foreign object with a child's name or an app Secret nobody can restore must
  // never prevent a failover. The children's failure is reported once HA had its turn.
  const children =
    "error" in found
      ? { error: found.error }
      : await settled(convergeChildren(deps, db, input, found.passwords));
  await announceRestored(cluster, db, found.restored);
  // After the children: what the pods mount (and the operator presents) is what was applied.
  const ha =
    found.superuser === undefined
      ? undefined
      : await runHa({ deps, db, writer }, input, pods, {
          password: found.superuser,
          tls: await operatorTls(cluster, db),
        });
  const primary = ha?.primary ?? primaryOf(db);
  if (!ha?.busy) await labelRoles(cluster, pods, primary, ha?.notServing);
  const backups = await runBackups(cluster, db, input, backupInstances(pods, ha), deps.now());
  if ("error" in children) throw children.error;
  if ("error" in backups) throw backups.error;
  const outcome = await finish({ deps, db, writer }, spec, { pods, primary, ha, backups });
  return withScheduleRequeue(outcome, spec, deps.now());
}

/** The Backups step; its failure is reported after the status, like the children's. */
const runBackups = (...args: Parameters<typeof reconcileBackups>) =>
  reconcileBackups(...args).then(
    (backups: KubeObject[]) => backups,
    (error: unknown) => ({ error }),
  );

/** Back at the next time spec.backup.schedule fires, whatever else happens meanwhile. */
function withScheduleRequeue(outcome: Outcome, spec: ResolvedSpec, now: Date): Outcome {
  const schedule = spec.backup?.objectStore ? spec.backup.schedule : undefined;
  if (!schedule) return outcome;
  const untilBackup = untilNextFireMs(schedule, now);
  return { ...outcome, requeueAfterMs: Math.min(outcome.requeueAfterMs ?? Infinity, untilBackup) };
}

/** Where a rotation logs in: each login says its own password (the previous one is known there). */
async function rotationTargets(deps: ReconcileDeps, db: Database, pods: KubeObject[]) {
  const tls = deps.ha ? await operatorTls(deps.cluster, db) : undefined;
  const headless = childNames(db.metadata?.name ?? "").headlessService;
  return targetsFor(pods, { password: "", ...(tls ? { tls } : {}) }, headless);
}

/**
 * The passwords in use, after applying those edited in their Secret to PostgreSQL, and
 * remembered (a Secret deleted later is put back from them). Either both, or the error that keeps
 * the children from being applied: an unknown password, or an edit not yet in PostgreSQL (the
 * Secret keeps it). The superuser's stands alone: HA needs only that one.
 */
async function passwordsInUse(
  deps: ReconcileDeps,
  db: Database,
  pods: KubeObject[],
): Promise<
  { superuser?: string; restored: RestoredSecret[] } & (
    | { passwords: Passwords }
    | { error: ReconcileError }
  )
> {
  const key = databaseKey(db.metadata?.namespace ?? "", db.metadata?.name ?? "");
  const memory = deps.ha?.memory.of(key);
  const generate = deps.newPassword ?? generatePassword;
  const stored = await ensurePasswords(deps.cluster, db, generate, memory?.passwords);
  const { found, failures } = await rotatePasswords(
    {
      cluster: deps.cluster,
      db,
      sql: deps.ha?.sql,
      pods,
      primary: primaryOf(db),
      target: await rotationTargets(deps, db, pods),
    },
    stored,
  );
  const passwords = passwordsOrError(found);
  const base = { superuser: found.superuser, restored: found.restored };
  if (passwords instanceof ReconcileError) return { ...base, error: passwords };
  if (memory) memory.passwords = passwords;
  if (failures.length > 0)
    return {
      ...base,
      error: new ReconcileError("PasswordRotationFailed", `Rotating ${failures.join("; ")}`),
    };
  return { ...base, passwords };
}

/** Best effort, like every Event: the Secret is back either way. */
async function announceRestored(
  cluster: Cluster,
  db: Database,
  restored: RestoredSecret[],
): Promise<void> {
  for (const r of restored)
    await cluster.recordEvent(db, {
      type: "Warning",
      reason: "SecretRestored",
      message: `Secret ${r.secret} was deleted: its password is back to the one PostgreSQL has (a new one would lock every client out; to rotate a password, edit it in the Secret)`,
    });
}

/** A step's outcome, kept to be reported later. */
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

const settled = (step: Promise<void>): Promise<{ error: unknown } | { ok: true }> =>
  step.then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ error }),
  );

/** Status from what this pass saw, and when to look again. */
/** What a pass found, for the status. */
interface Found {
  pods: KubeObject[];
  primary: string;
  ha: HaResult | undefined;
  backups: KubeObject[];
}

async function finish(
  pass: Pass,
  spec: ResolvedSpec,
  { pods, primary, ha, backups }: Found,
): Promise<Outcome> {
  const { deps, db, writer } = pass;
  const observation = {
    generation: generation(db),
    desiredInstances: spec.instances,
    primary,
    pods: observePods(pods),
    ...repositoryOf(db, spec),
    backups: summarizeBackups(
      backups,
      spec.backup?.volume !== undefined && spec.backup.objectStore === undefined,
    ),
  };
  // After an operation's own writes, the stored status is the writer's, not the one read.
  const converged = convergedStatus(writer.status, observation, deps.now());
  const next = ha ? withHa(pass, converged, ha) : converged;
  await writer.write(next);
  await announceReady(deps, db, next, spec.instances);
  const requeue = Math.min(
    ha?.requeueAfterMs ?? Infinity,
    next.phase === "Ready" ? Infinity : NOT_READY_REQUEUE_MS,
  );
  return Number.isFinite(requeue) ? { requeueAfterMs: requeue } : {};
}

/** status.backup.repositoryPath: where a restore (bootstrap.recovery) finds this Database's data. */
function repositoryOf(db: Database, spec: ResolvedSpec): { repositoryPath?: string } {
  const store = spec.backup?.objectStore;
  if (!store) return {};
  const { namespace = "", name = "", uid = "" } = db.metadata ?? {};
  return { repositoryPath: repositoryPath(store, { namespace, name, uid }) };
}

/** What one pass works on: its dependencies, the Database as read, and its one writer. */
interface Pass {
  deps: ReconcileDeps;
  db: Database;
  writer: DatabaseWriter;
}

function withHa(
  { deps, db, writer }: Pass,
  next: DatabaseStatus,
  result: HaResult,
): DatabaseStatus {
  if (!deps.ha) return next;
  const key = databaseKey(db.metadata?.namespace ?? "", db.metadata?.name ?? "");
  return withHaStatus(next, result, writer.status, deps.ha.memory.of(key), deps.now());
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

/** Applies what differs, prunes what must not exist, announces changes. */
async function convergeChildren(
  deps: ReconcileDeps,
  db: Database,
  input: BuildInput,
  passwords: Passwords,
): Promise<void> {
  const results: ChildResult[] = [];
  const backupTls = input.spec.backup?.objectStore
    ? await ensureBackupTls(deps.cluster, db, serverDnsNames(input), deps.now())
    : undefined;
  const tls = await ensureTls(deps.cluster, db, postgresDnsNames(input), deps.now());
  const children = desiredChildren(
    input,
    passwords,
    { tls, backupTls },
    deps.config.operatorNamespace,
  );
  for (const child of children) {
    results.push(await convergeChild(deps.cluster, db, withAppliedHash(child)));
  }
  for (const ref of obsoleteChildren(input)) {
    results.push(
      await pruneChild(deps.cluster, db, { ...ref, namespace: db.metadata?.namespace ?? "" }),
    );
  }
  await announceChanges(deps, db, results);
}

async function runHa(
  { deps, db, writer }: Pass,
  input: BuildInput,
  pods: KubeObject[],
  credentials: OperatorCredentials,
): Promise<HaResult | undefined> {
  if (!deps.ha) return undefined;
  return haStep({
    cluster: deps.cluster,
    ha: deps.ha,
    db,
    input,
    primary: primaryOf(db),
    pods,
    password: credentials.password,
    target: targetsFor(pods, credentials, childNames(db.metadata?.name ?? "").headlessService),
    now: deps.now,
    isLeader: deps.isLeader ?? (() => true),
    updateRevision: await updateRevisionOf(deps, db),
    applyChild: async child => void (await convergeChild(deps.cluster, db, withAppliedHash(child))),
    writer,
  });
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

/** One Event per kind of change, listing the objects: sparse, and readable in `kubectl describe`. */
async function announceChanges(
  deps: ReconcileDeps,
  db: Database,
  results: ChildResult[],
): Promise<void> {
  const groups: [ChildResult["change"], EventInput["reason"], string][] = [
    ["create", "ChildrenCreated", "Created"],
    ["update", "ChildrenUpdated", "Updated to the new spec"],
    ["drift", "DriftRepaired", "Repaired (changed outside pgkeeper)"],
    ["deleted", "ChildrenDeleted", "Deleted (no longer needed)"],
  ];
  for (const [change, reason, verb] of groups) {
    const refs = results.filter(c => c.change === change).map(c => describeRef(c.ref));
    if (refs.length > 0)
      await deps.cluster.recordEvent(db, {
        type: "Normal",
        reason,
        message: `${verb}: ${refs.join(", ")}`,
      });
  }
}

/**
 * Deletion: children go by garbage collection (owner references), and pgkeeper keeps no finalizer
 * of its own (docs/adr/0005). A Database created by an earlier version still carries Pepr's; it is
 * removed here, so deleting such a Database never waits for anything else.
 */
async function handleDeletion(deps: ReconcileDeps, db: Database): Promise<Outcome> {
  if (db.metadata?.finalizers?.includes(LEGACY_FINALIZER))
    await deps.cluster.removeFinalizer(db, LEGACY_FINALIZER);
  return {};
}
