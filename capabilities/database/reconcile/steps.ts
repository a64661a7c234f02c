/**
 * The steps of a reconcile pass, in order. This table is the order: reconcile.ts runs it as it
 * stands, and the list in docs/architecture.md is generated from it (npm run docs:generate).
 */
import { labelRoles, primaryOf } from "./pods";
import { backupsStep } from "./backups-step";
import { childrenStep } from "./children-step";
import { customQueriesStep } from "./custom-queries-step";
import { dataClaimsStep } from "./claims-step";
import { haRunStep } from "./ha-run";
import type { Found, Pass, Step, StepResult } from "./pass";
import { passwordsStep } from "./passwords-step";
import { restartStep } from "./restart-step";
import { statusStep } from "./status-step";
import { upgradeStep } from "./upgrade-step";

/** Labels by role, unless an operation runs: it relabels as it goes. */
async function roleLabelsStep({ deps, db, pods }: Pass, { ha }: Found): Promise<StepResult> {
  if (!ha?.busy) await labelRoles(deps.cluster, pods, ha?.primary ?? primaryOf(db), ha?.notServing);
  return {};
}

export const STEPS: readonly Step[] = [
  {
    name: "passwords",
    does: "the credentials Secrets against the passwords PostgreSQL has; a password edited in its Secret is set in PostgreSQL first (ADR 0012)",
    file: "reconcile/passwords-step.ts",
    keepsInstancesSafe: true,
    run: pass => passwordsStep(pass),
  },
  {
    name: "data claims",
    does: "each instance's data volume claim owned by the Database, before the StatefulSet (which retains its claims) is applied: only deleting the Database deletes data",
    file: "reconcile/claims-step.ts",
    run: pass => dataClaimsStep(pass),
  },
  {
    name: "metrics queries",
    does: "the ConfigMap keys spec.monitoring.customQueries names, each checked and taken whole or left out with its reason, for the metrics sidecar's queries file (ADR 0043)",
    file: "reconcile/custom-queries-step.ts",
    run: pass => customQueriesStep(pass),
  },
  {
    name: "children",
    does: "the CA and every certificate (pki/), then each desired child applied where it differs, and those this spec must not have pruned",
    file: "reconcile/children-step.ts",
    run: (pass, found) =>
      childrenStep(pass, found.passwords, found.restored, found.customQueries?.queries),
  },
  {
    name: "high availability",
    does: "probes, failover, switchover, rolling restarts, live parameters, passfiles, TLS reloads (ha/); never waits for a failed child",
    file: "reconcile/ha-run.ts",
    keepsInstancesSafe: true,
    run: (pass, found) => haRunStep(pass, found.superuser),
  },
  {
    name: "role labels",
    does: "each pod's role label, which the -rw and -ro Services select by; left alone while an operation runs",
    file: "reconcile/pods.ts",
    keepsInstancesSafe: true,
    run: roleLabelsStep,
  },
  {
    name: "rolling restart",
    does: "the pgkeeper.dev/restart annotation: recorded in status.restart, whose time the pod template then carries, so every instance rolls as a template change does; the annotation removed once all are back",
    file: "reconcile/restart-step.ts",
    run: pass => restartStep(pass),
  },
  {
    name: "backups",
    does: "the Backup the schedule wants now, then each unfinished Backup's Job and status (backup/)",
    file: "reconcile/backups-step.ts",
    run: (pass, found) => backupsStep(pass, found),
  },
  {
    name: "major upgrade",
    does: "a raised spec.version: wait for operations, lagging standbys, archiving and a backup of the old major, check in a Job beside the serving primary (a refusal stops nothing), stop the instances, convert the primary's data in a Job (pg_upgrade --copy, the old data kept), start the new major, back it up, then delete the old data (upgrade/, ADR 0041)",
    file: "reconcile/upgrade-step.ts",
    run: (pass, found) => upgradeStep(pass, found),
  },
  {
    name: "status",
    does: "status from what the pass saw, by the pass's one writer, only when it differs; skipped after a failure, which the pass reports instead",
    file: "reconcile/status-step.ts",
    afterFailure: false,
    run: (pass, found) => statusStep(pass, found),
  },
];
