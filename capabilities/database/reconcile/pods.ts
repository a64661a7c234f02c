/**
 * Instance pods: observe readiness and keep the role label right, since the `-rw` and `-ro`
 * Services select pods by role. Only pods of this Database's StatefulSet are considered: those
 * it controls by name, never every pod that carries the labels.
 */
import { Database } from "../api/database";
import {
  LABEL_ROLE,
  ROLE_PRIMARY,
  ROLE_REPLICA,
  ROLE_REPLICA_NOT_SERVING,
  instanceName,
  ordinalOf,
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

/**
 * Whether a pod carrying this Database's labels is one of its instances: named `<db>-<ordinal>`
 * and controlled by the StatefulSet `<db>`; or controlled by nothing, below `replicas`, as while
 * a recreated StatefulSet adopts the pods its predecessor left (the StatefulSet controller adopts
 * such a pod as that member anyway). Labels alone prove nothing: anyone who may create pods in
 * the namespace can copy them, and an instance gets the superuser's password, a role label the
 * Services route by, and a say in pg_hba.conf (a pod without TLS turns on the TLS transition).
 */
export function isInstancePod(db: string, replicas: number, pod: KubeObject): boolean {
  const name = pod.metadata?.name ?? "";
  const ordinal = name.startsWith(`${db}-`) ? name.slice(db.length + 1) : "";
  if (!/^(0|[1-9]\d*)$/.test(ordinal)) return false;
  const controller = (pod.metadata?.ownerReferences ?? []).find(r => r.controller === true);
  if (!controller) return Number(ordinal) < replicas;
  return (
    controller.apiVersion === "apps/v1" &&
    controller.kind === "StatefulSet" &&
    controller.name === db
  );
}

/** The instance pods of the Database (see isInstancePod), however many pods copy its labels. */
export async function listInstancePods(cluster: Cluster, db: Database): Promise<KubeObject[]> {
  const name = db.metadata?.name ?? "";
  const labelled = await cluster.list(
    { apiVersion: "v1", kind: "Pod" },
    db.metadata?.namespace ?? "",
    selectorLabels(name),
  );
  // While scaling down, the StatefulSet keeps the primary's ordinal until a switchover.
  const replicas = Math.max(db.spec?.instances ?? 1, ordinalOf(primaryOf(db)) + 1);
  return labelled.filter(pod => isInstancePod(name, replicas, pod));
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
