/**
 * Instance pods: observe readiness and keep the role label right, since the `-rw` and `-ro`
 * Services select pods by role. Only pods of this Database's StatefulSet are considered.
 */
import { Database } from "../api/database";
import {
  LABEL_ROLE,
  ROLE_PRIMARY,
  ROLE_REPLICA,
  ROLE_REPLICA_NOT_SERVING,
  instanceName,
  selectorLabels,
} from "../api/names";
import { Cluster, KubeObject, isPodReady, isTerminating, refOf } from "../cluster/cluster";
import { imagePullProblem } from "../cluster/image-pull";
import { ObservedPod } from "./status";

/** The primary: the one recorded in status, else ordinal 0 (the instance that ran initdb). */
export function primaryOf(db: Database): string {
  const name = db.metadata?.name ?? "";
  return db.status?.currentPrimary ?? instanceName(name, 0);
}

export async function listInstancePods(cluster: Cluster, db: Database): Promise<KubeObject[]> {
  return cluster.list(
    { apiVersion: "v1", kind: "Pod" },
    db.metadata?.namespace ?? "",
    selectorLabels(db.metadata?.name ?? ""),
  );
}

/** The role label a pod must carry: `<db>-rw` selects the primary, `<db>-ro` serving replicas. */
const roleOf = (name: string, primary: string, notServing: Record<string, string>): string =>
  name === primary ? ROLE_PRIMARY : notServing[name] ? ROLE_REPLICA_NOT_SERVING : ROLE_REPLICA;

/** Sets role labels where they are wrong. */
export async function labelRoles(
  cluster: Cluster,
  pods: KubeObject[],
  primary: string,
  notServing: Record<string, string> = {},
): Promise<void> {
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    const role = roleOf(pod.metadata?.name ?? "", primary, notServing);
    if (pod.metadata?.labels?.[LABEL_ROLE] !== role)
      await cluster.patchLabels(refOf(pod), { [LABEL_ROLE]: role });
  }
}

/** A terminating pod is not available, whatever its last Ready condition says. */
export const observePods = (pods: KubeObject[]): ObservedPod[] =>
  pods.map(p => {
    const imagePull = imagePullProblem(p);
    return {
      name: p.metadata?.name ?? "",
      ready: isPodReady(p),
      role: p.metadata?.labels?.[LABEL_ROLE],
      ...(imagePull ? { imagePull } : {}),
    };
  });
