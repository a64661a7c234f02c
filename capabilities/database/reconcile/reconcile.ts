/**
 * Reconcile one Database: the guards (guards.ts), then the steps (steps.ts), in the order of
 * their tables. Level-based and idempotent: the same input gives the same children and no
 * writes; every failure surfaces in status and Events.
 *
 * Status has one writer per pass (cluster/database-writer): steps return what status should say
 * as values, an operation records its own steps through the same writer, and every write carries
 * the resourceVersion of the view it was computed from. Writes are counted at the Cluster port;
 * they are fenced by leadership where the controller is built (deps.ts), never step by step.
 */
import { Database } from "../api/database";
import { withDefaults } from "../api/defaults";
import { childNames, databaseKey } from "../api/names";
import { DatabaseWriter } from "../cluster/database-writer";
import { countWrites } from "../cluster/write-wrappers";
import { settleBackupsWithoutDatabase } from "../backup/backups";
import { defaultImageFor } from "../lib/config";
import { withTlsTransition } from "../pki/operator-tls";
import { instancesStopped } from "../upgrade/decide";
import { dataVersionOf, Running, runningIn, runtimeSpec } from "../upgrade/runtime";
import { buildInput } from "./build-input";
import type { ReconcileDeps } from "./deps";
import { GUARDS } from "./guards";
import type { Found, Pass } from "./pass";
import { listInstancePods } from "./pods";
import { withoutRefusedParameters } from "./refused-spec";
import { STEPS } from "./steps";

export type { Denial, ReconcileDeps } from "./deps";
export { LEGACY_FINALIZER } from "./guards";

export interface ReconcileReport {
  /** Mutating API calls made (0 once converged), counted at the Cluster port. */
  writes: number;
  /** The Database no longer exists. */
  gone?: boolean;
  requeueAfterMs?: number;
}

type Outcome = Omit<ReconcileReport, "writes">;

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
  const writer = new DatabaseWriter(deps.cluster, db);
  let specRefused = false;
  for (const guard of GUARDS) {
    const verdict = await guard.run(deps, db, writer);
    if (verdict === "stop") return {};
    specRefused ||= verdict === "instances only";
  }
  return runSteps(await passOf(deps, db, writer, specRefused));
}

async function passOf(
  deps: ReconcileDeps,
  db: Database,
  writer: DatabaseWriter,
  specRefused: boolean,
): Promise<Pass> {
  // A refused spec: high availability only, and never with a parameter the rules refused.
  const admitted = specRefused ? withoutRefusedParameters(db.spec!, deps.validate(db)) : db.spec!;
  const imageFor = (version: string): string => defaultImageFor(version, deps.config);
  const wanted = withDefaults(admitted, imageFor);
  // Until a major upgrade converted the data, the instances run the data's major (ADR 0041).
  const running = await runningOf(deps, db);
  const dataVersion = dataVersionOf(db.status?.version, running, wanted);
  const spec = runtimeSpec(wanted, dataVersion, db.status?.upgrade, running, imageFor);
  const pods = await listInstancePods(deps.cluster, db);
  const key = databaseKey(db.metadata?.namespace ?? "", db.metadata?.name ?? "");
  const input = withTlsTransition(buildInput(db, spec), pods);
  if (instancesStopped(db.status?.upgrade)) input.replicas = 0;
  return { deps, db, key, writer, spec, wanted, dataVersion, running, pods, input, specRefused };
}

/** The image and major the StatefulSet's PostgreSQL runs (nothing before it exists). */
async function runningOf(deps: ReconcileDeps, db: Database): Promise<Running> {
  const sts = await deps.cluster.get(
    {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      namespace: db.metadata?.namespace ?? "",
      name: childNames(db.metadata?.name ?? "").statefulSet,
    },
    { missingIsAbsent: true },
  );
  return sts ? runningIn(sts) : {};
}

/**
 * Every step in order, each given what the earlier ones found. The first failure is thrown once
 * every step had its turn (the controller records it in status and retries with backoff);
 * otherwise the pass comes back at the soonest time a step asked for.
 */
async function runSteps(pass: Pass): Promise<Outcome> {
  let found: Found = {};
  let failure: { error: unknown } | undefined;
  let requeueAfterMs = Infinity;
  for (const step of STEPS) {
    if (failure && step.afterFailure === false) continue;
    if (pass.specRefused && !step.keepsInstancesSafe) continue;
    const result = await step.run(pass, found);
    found = { ...found, ...result.found };
    if (result.failure !== undefined) failure ??= { error: result.failure };
    requeueAfterMs = Math.min(requeueAfterMs, result.requeueAfterMs ?? Infinity);
  }
  if (failure) throw failure.error;
  return Number.isFinite(requeueAfterMs) ? { requeueAfterMs } : {};
}
