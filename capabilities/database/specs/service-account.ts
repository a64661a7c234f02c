/**
 * The ServiceAccount `<db>-postgres` that the instances and the backup Jobs run as: their own,
 * never the namespace's `default` (which other workloads and RoleBindings share), and with no
 * token mounted, since nothing in those pods talks to the Kubernetes API. It is also where a
 * platform team attaches an identity of its own (imagePullSecrets, a cloud role for the object
 * store) to one Database's pods only. Owned by the Database: deleted with it.
 */
import type { V1ServiceAccount } from "@kubernetes/client-node";
import { BuildInput, Child, childMeta, namesOf } from "./meta";

export function buildServiceAccount(input: BuildInput): Child<V1ServiceAccount> {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: childMeta(input, namesOf(input).serviceAccount),
    automountServiceAccountToken: false,
  };
}
