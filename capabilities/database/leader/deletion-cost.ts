/**
 * The leader's pod is the last one a rollout takes away. A rolling update of the watchers scales
 * the old ReplicaSet down one pod at a time, and a ReplicaSet deletes the pod with the lowest
 * `controller.kubernetes.io/pod-deletion-cost` first: the leader marks its own pod costly while
 * it leads, so the standbys go first and leadership moves once per upgrade, to a pod of the new
 * build, instead of hopping to an old standby that is about to go too.
 */
export const DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost";
/** Any cost above the standbys' (none, i.e. 0) does. */
export const LEADER_DELETION_COST = "1000";

/** The merge patch of the watcher's own pod when it starts (or stops) leading. */
export const deletionCostPatch = (
  leading: boolean,
): { metadata: { annotations: Record<string, string | null> } } => ({
  metadata: { annotations: { [DELETION_COST_ANNOTATION]: leading ? LEADER_DELETION_COST : null } },
});

/** Where the service account's namespace is mounted in a pod. */
export const SERVICE_ACCOUNT_NAMESPACE_FILE =
  "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/**
 * This process's pod, when it runs in one: the kubelet sets HOSTNAME to the pod's name and mounts
 * the namespace file (a process on a developer's machine, `pepr dev`, has neither).
 */
export function ownPod(
  env: Record<string, string | undefined>,
  readNamespaceFile: () => string | undefined,
): { namespace: string; name: string } | undefined {
  const name = env.HOSTNAME?.trim();
  const namespace = readNamespaceFile()?.trim();
  return name && namespace ? { namespace, name } : undefined;
}
