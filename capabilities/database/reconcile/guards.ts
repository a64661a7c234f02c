/**
 * The guards of a reconcile pass: states in which nothing else may happen, checked before any
 * step (steps.ts). Each says whether the pass stops there.
 */
import { Database } from "../api/database";
import { DatabaseWriter } from "../cluster/database-writer";
import type { ReconcileDeps } from "./deps";
import { recordFailureOn } from "./failure";
import { pausedStatus } from "./status";

/** The finalizer Pepr's Finalize binding added to Databases created by pgkeeper 0.1 and before. */
export const LEGACY_FINALIZER = "pepr.dev/finalizer";

export interface Guard {
  name: string;
  /** One line on what it does (docs/architecture.md is generated from these). */
  does: string;
  file: string;
  /** True: the pass stops here. */
  run(deps: ReconcileDeps, db: Database, writer: DatabaseWriter): Promise<boolean>;
}

const generation = (db: Database): number => db.metadata?.generation ?? 0;

async function deletion(deps: ReconcileDeps, db: Database): Promise<boolean> {
  if (!db.metadata?.deletionTimestamp) return false;
  if (db.metadata.finalizers?.includes(LEGACY_FINALIZER))
    await deps.cluster.removeFinalizer(db, LEGACY_FINALIZER);
  return true;
}

async function paused(deps: ReconcileDeps, db: Database, writer: DatabaseWriter): Promise<boolean> {
  if (db.spec?.paused !== true) return false;
  await writer.write(pausedStatus(db.status, generation(db), deps.now()));
  return true;
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

async function validSpec(
  deps: ReconcileDeps,
  db: Database,
  writer: DatabaseWriter,
): Promise<boolean> {
  const denials = deps.validate(db);
  if (denials.length === 0 || reconciledBefore(db)) return false;
  await recordFailureOn(deps, db, writer, {
    reason: "InvalidSpec",
    message: denials.map(d => d.message).join("; "),
    attempts: 0,
    permanent: true,
  });
  return true;
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
    does: "the admission rules again (a Database admitted while the webhook was down): InvalidSpec, and nothing is touched; a generation reconciled before is not stopped by a rule added since",
    file: "reconcile/guards.ts",
    run: validSpec,
  },
];
