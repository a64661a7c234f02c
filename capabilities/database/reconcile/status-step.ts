/**
 * The status step: status from what this pass saw, written by the pass's one writer only when it
 * differs (after an operation's own writes, the stored status is the writer's, not the one read),
 * and the DatabaseReady Event when the Database became Ready.
 */
import { Database } from "../api/database";
import { ResolvedSpec } from "../api/defaults";
import { DatabaseStatus } from "../api/database-schema";
import { summarizeBackups } from "../backup/backup-summary";
import { withHaStatus } from "../ha/ha-status";
import { identity } from "../specs/meta";
import { repositoryPath } from "../specs/pgbackrest";
import type { Found, Pass, StepResult } from "./pass";
import { observePods, primaryOf } from "./pods";
import { allInstancesReady, convergedStatus, Observation } from "./status";
import { rwRoutesTo } from "./service-routes";
import { haStandsAside } from "../upgrade/decide";
import { setCondition } from "../api/conditions";
import { CustomQueries, customQueriesCondition } from "../specs/custom-queries";

/** While instances are starting, look again even if no watch event arrives. */
const NOT_READY_REQUEUE_MS = 15_000;

/** status.backup.repositoryPath: where a restore (bootstrap.recovery) finds this Database's data. */
function repositoryOf(db: Database, spec: ResolvedSpec): { repositoryPath?: string } {
  const store = spec.backup?.objectStore;
  if (!store) return {};
  const { namespace = "", name = "", uid = "" } = db.metadata ?? {};
  return { repositoryPath: repositoryPath(store, { namespace, name, uid }) };
}

/**
 * What a major upgrade adds: status.version, the data's major (kept once recorded: the upgrade
 * step moves it), and the phase while instances are stopped or starting for it (what the
 * Database is doing, not Degraded).
 */
function withUpgrade(
  observed: DatabaseStatus,
  stored: DatabaseStatus | undefined,
  dataVersion: string,
): DatabaseStatus {
  const next = { ...observed, version: stored?.version ?? dataVersion };
  return haStandsAside(stored?.upgrade) ? { ...next, phase: "Upgrading" } : next;
}

/**
 * Whether `<db>-rw` routes to the primary, asked only when the Database is about to become
 * Ready: once Ready, a client may connect (ADR 0035's label moves first, the endpoints follow).
 */
async function withRoutes(pass: Pass, observation: Observation): Promise<Observation> {
  if (pass.writer.status?.phase === "Ready" || !allInstancesReady(observation)) return observation;
  const { namespace, name } = identity(pass.db);
  const routed = await rwRoutesTo(pass.deps.cluster, namespace, name, observation.primary);
  return { ...observation, routed };
}

export async function statusStep(pass: Pass, found: Found): Promise<StepResult> {
  const { deps, db, writer, spec, pods, key } = pass;
  const observation = await withRoutes(pass, {
    generation: db.metadata?.generation ?? 0,
    desiredInstances: spec.instances,
    primary: found.primary ?? primaryOf(db),
    pods: observePods(pods),
    ...repositoryOf(db, spec),
    backups: summarizeBackups(
      found.backups ?? [],
      spec.backup?.volume !== undefined && spec.backup.objectStore === undefined,
    ),
  });
  const converged = convergedStatus(writer.status, observation, deps.now());
  const observed =
    found.ha && deps.ha
      ? withHaStatus(
          converged,
          found.ha,
          writer.status,
          deps.ha.memory.of(key).progress,
          deps.now(),
        )
      : converged;
  const next = withCustomQueries(
    withUpgrade(observed, writer.status, pass.dataVersion),
    found.customQueries,
    deps.now(),
    db.metadata?.generation,
  );
  await writer.write(next);
  await announceReady(pass, next);
  return next.phase === "Ready" ? {} : { requeueAfterMs: NOT_READY_REQUEUE_MS };
}

/** CustomQueries says how the user's metrics queries fared; it goes when none are asked for. */
function withCustomQueries(
  status: DatabaseStatus,
  queries: CustomQueries | undefined,
  now: Date,
  generation: number | undefined,
): DatabaseStatus {
  if (!queries && !status.conditions?.some(c => c.type === "CustomQueries")) return status;
  const conditions = queries
    ? setCondition(status.conditions, customQueriesCondition(queries), now, generation)
    : status.conditions?.filter(c => c.type !== "CustomQueries");
  return { ...status, conditions };
}

async function announceReady({ deps, db, spec }: Pass, next: DatabaseStatus): Promise<void> {
  if (next.phase !== "Ready" || db.status?.phase === "Ready") return;
  await deps.cluster.recordEvent(db, {
    type: "Normal",
    reason: "DatabaseReady",
    message: `All ${spec.instances} instances are ready`,
  });
}
