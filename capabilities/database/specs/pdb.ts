/**
 * PodDisruptionBudgets, which bound voluntary evictions (node drains), by instance count:
 *
 * - 1 instance: none. A budget over a single pod can never be met, so it would block every node
 *   drain forever (a frequent complaint about PostgreSQL operators); a single instance has no
 *   availability to protect anyway.
 * - 2 and more: `<db>-primary`, minAvailable 1 over the pod labelled primary. The primary is then
 *   never evicted: a drain waits until the operator switched over to a replica and moved the
 *   label, which turns the eviction into one of a replica.
 * - 3 and more: `<db>-replicas`, maxUnavailable 1 over the replicas, so a drain takes at most one
 *   replica at a time. With 2 instances there is one replica and the budget would add nothing.
 *
 * `unhealthyPodEvictionPolicy: AlwaysAllow`: a pod that is not ready protects nothing, and
 * keeping it (for instance a crash-looping replica) must not block a drain.
 */
import type { V1PodDisruptionBudget } from "@kubernetes/client-node";
import type { Role } from "../api/names";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";
import { roleSelector } from "./services";

const MIN_INSTANCES_FOR_PRIMARY_PDB = 2;
const MIN_INSTANCES_FOR_REPLICAS_PDB = 3;

function budget(
  input: BuildInput,
  name: string,
  role: Role,
  limit: { minAvailable: number } | { maxUnavailable: number },
): Child<V1PodDisruptionBudget> {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: childMeta(input, name),
    spec: {
      ...limit,
      selector: { matchLabels: roleSelector(identity(input.db).name, role) },
      unhealthyPodEvictionPolicy: "AlwaysAllow",
    },
  };
}

/** The budgets for this instance count (possibly none), primary first. */
export function buildPodDisruptionBudgets(input: BuildInput): Child<V1PodDisruptionBudget>[] {
  const names = namesOf(input);
  const { instances } = input.spec;
  return [
    ...(instances >= MIN_INSTANCES_FOR_PRIMARY_PDB
      ? [budget(input, names.pdbPrimary, "primary", { minAvailable: 1 })]
      : []),
    ...(instances >= MIN_INSTANCES_FOR_REPLICAS_PDB
      ? [budget(input, names.pdbReplicas, "replica", { maxUnavailable: 1 })]
      : []),
  ];
}
