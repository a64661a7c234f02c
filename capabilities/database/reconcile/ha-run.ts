/**
 * The high-availability step as reconcile runs it (ha/ha-step.ts does the work): after the
 * children, so what the pods mount (and the operator presents) is what was applied, and only
 * once the superuser's password is known. HA never waits for a failed child.
 */
import { Database } from "../api/database";
import { childNames } from "../api/names";
import { HaResult, haStep } from "../ha/ha-step";
import { targetsFor } from "../instance/targets";
import { operatorTls } from "../pki/operator-tls";
import { convergeChild } from "./children";
import type { ReconcileDeps } from "./deps";
import { withAppliedHash } from "./diff";
import type { Pass, StepResult } from "./pass";
import { primaryOf } from "./pods";
import { haStandsAside } from "../upgrade/decide";

export async function haRunStep(pass: Pass, superuser: string | undefined): Promise<StepResult> {
  const { deps, db, pods, writer } = pass;
  if (!deps.ha || !deps.instances || superuser === undefined) return {};
  if (haStandsAside(db.status?.upgrade)) return {};
  const tls = await operatorTls(deps.cluster, db);
  const ha: HaResult = await haStep({
    cluster: deps.cluster,
    sql: deps.instances.sql,
    monitor: deps.instances.monitor,
    ha: deps.ha,
    db,
    input: pass.input,
    primary: primaryOf(db),
    pods,
    password: superuser,
    target: targetsFor(
      pods,
      { password: superuser, ...(tls ? { tls } : {}) },
      childNames(db.metadata?.name ?? "").headlessService,
      !deps.ha.memory.of(pass.key).monitor.loggedIn,
    ),
    now: deps.now,
    updateRevision: await updateRevisionOf(deps, db),
    applyChild: async child => void (await convergeChild(deps.cluster, db, withAppliedHash(child))),
    writer,
  });
  return {
    found: { ha, primary: ha.primary },
    ...(ha.requeueAfterMs !== undefined ? { requeueAfterMs: ha.requeueAfterMs } : {}),
  };
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
