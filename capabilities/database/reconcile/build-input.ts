/**
 * The builders' input for a Database: its resolved spec plus where the primary must be. While
 * scaling down, the StatefulSet keeps the primary's ordinal until a switchover moved the primary
 * below the new count (scaling must never remove the primary).
 */
import { Database } from "../api/database";
import { ResolvedSpec } from "../api/defaults";
import { instanceName, ordinalOf } from "../api/names";
import { BuildInput } from "../specs";
import { primaryOf } from "./pods";

/** Ordinal + 1 of an instance name (`db-2` → 3): the replicas needed to keep it; 0 for none. */
const replicasToKeep = (pod: string | undefined): number => (pod ? ordinalOf(pod) + 1 : 0);

export function buildInput(db: Database, spec: ResolvedSpec): BuildInput {
  const status = db.status ?? {};
  const operation = status.operation;
  const primary = operation?.to ?? status.targetPrimary ?? primaryOf(db);
  const replicas = Math.max(
    spec.instances,
    replicasToKeep(status.currentPrimary),
    replicasToKeep(operation?.from),
    replicasToKeep(operation?.to),
  );
  const input: BuildInput = { db, spec };
  if (primary !== instanceName(db.metadata?.name ?? "", 0)) input.primary = primary;
  if (replicas !== spec.instances) input.replicas = replicas;
  return input;
}
