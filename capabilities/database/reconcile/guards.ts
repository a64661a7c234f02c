/**
 * The guards of a reconcile pass: states in which nothing else may happen, checked before any
 * step (steps.ts). Each says whether the pass goes on, stops there, or only keeps the running
 * instances safe.
 */
import { Database } from "../api/database";
import { DatabaseWriter } from "../cluster/database-writer";
import type { ReconcileDeps } from "./deps";
import { recordFailureOn } from "./failure";
import { pausedStatus } from "./status";

/** The finalizer Pepr's Finalize binding added to Databases created by pgkeeper 0.1 and before. */
export const LEGACY_FINALIZER = "pepr.dev/finalizer";

/**
 * What a guard decides: the pass goes on, stops, or runs only the steps that keep the running
 * instances safe (`keepsInstancesSafe` in steps.ts): failover must never depend on the spec.
 */
export type GuardVerdict = "go on" | "stop" | "instances only";

export interface Guard {
  name: string;
  /** One line on what it does (docs/architecture.md is generated from these). */
  does: string;
  file: string;
  run(deps: ReconcileDeps, db: Database, writer: DatabaseWriter): Promise<GuardVerdict>;
}

const generation = (db: Database): number => db.metadata?.generation ?? 0;

async function deletion(deps: ReconcileDeps, db: Database): Promise<GuardVerdict> {
  if (!db.metadata?.deletionTimestamp) return "go on";
  if (db.metadata.finalizers?.includes(LEGACY_FINALIZER))
    await deps.cluster.removeFinalizer(db, LEGACY_FINALIZER);
  return "stop";
}

async function paused(
  deps: ReconcileDeps,
  db: Database,
  writer: DatabaseWriter,
): Promise<GuardVerdict> {
  if (db.spec?.paused !== true) return "go on";
  await writer.write(pausedStatus(db.status, generation(db), deps.now()));
  return "stop";
}

/**
 * This generation of the spec was reconciled before (by this operator or an earlier one): a rule
 * added since cannot stop it. Like admission's ratchet, which admits an update that leaves the
 * spec as it was; stopping the pass would stop failover with it (issue 28). What the newer rules
 * refuse for safety, the builders never write (blocked parameters are left out of the
 * configuration); the next change of the spec meets the rules at admission.
 */
const reconciledBefore = (db: Database): boolean =>
  db.metadata?.generation !== undefined && db.status?.observedGeneration === db.metadata.generation;

/**
 * A spec the rules refuse (admitted while the webhook was down): InvalidSpec, and nothing of it is
 * applied. The instances already running stay in care: failover, fencing and role labels go on
 * (never the spec's parameters), since an invalid edit must not leave a dead primary unreplaced.
 */
async function validSpec(
  deps: ReconcileDeps,
  db: Database,
  writer: DatabaseWriter,
): Promise<GuardVerdict> {
  const denials = deps.validate(db);
  if (denials.length === 0 || reconciledBefore(db)) return "go on";
  await recordFailureOn(deps, db, writer, {
    reason: "InvalidSpec",
    message: denials.map(d => d.message).join("; "),
    attempts: 0,
    permanent: true,
  });
  return "instances only";
}

export const GUARDS: readonly Guard[] = [
  {
    name: "deletion",
    does: "a Database being deleted only loses the finalizer of pgkeeper 0.1 (ADR 0005); garbage collection takes its children",
    file: "reconcile/guards.ts",
    run: deletion,
  },
  {
    name: "paused",
    does: "spec.paused: status says so, and nothing else is touched",
    file: "reconcile/guards.ts",
    run: paused,
  },
  {
    name: "valid spec",
    does: "the admission rules again (a Database admitted while the webhook was down): InvalidSpec, and only the steps that keep the running instances safe run (failover, role labels; never the spec's children or parameters); a generation reconciled before is not stopped by a rule added since",
    file: "reconcile/guards.ts",
    run: validSpec,
  },
];
