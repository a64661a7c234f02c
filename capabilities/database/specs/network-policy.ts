/**
 * The NetworkPolicy `<db>` (spec.networkPolicy, ADR 0018): ingress to the instance pods, and
 * nothing else, from
 *
 * - the Database's own pods: instances (replication, pg_rewind, pg_basebackup on 5432) and its
 *   backup Jobs (pgBackRest's TLS server on 8432, and PostgreSQL);
 * - the operator's namespace, on 5432 (probes, promotion, parameters);
 * - the clients the spec lists (every pod of the namespace by default), on 5432;
 * - every pod of every namespace on the metrics port, 9187, while spec.monitoring is on: a
 *   Prometheus may run anywhere, and what it reads there is read-only, over TLS (ADR 0043).
 *
 * Egress is not restricted: instances reach the object store, DNS and each other's Services,
 * whose addresses the Database does not know.
 */
import type { V1NetworkPolicy, V1NetworkPolicyPeer } from "@kubernetes/client-node";
import { commonLabels, LABEL_COMPONENT, selectorLabels } from "../api/names";
import { BACKUP_COMPONENT } from "./backup-job";
import { METRICS_PORT, POSTGRES_PORT } from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";
import { PGBACKREST_TLS_PORT } from "./pgbackrest";

/** The label Kubernetes puts on every namespace (1.21+), naming it. */
const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

const tcp = (port: number) => ({ protocol: "TCP", port });

/** The policy when spec.networkPolicy is on, else undefined. `operatorNamespace` is let in. */
export function buildNetworkPolicy(
  input: BuildInput,
  operatorNamespace: string,
): Child<V1NetworkPolicy> | undefined {
  const wanted = input.spec.networkPolicy;
  if (!wanted) return undefined;
  const db = identity(input.db).name;
  const ownPods: V1NetworkPolicyPeer[] = [
    { podSelector: { matchLabels: selectorLabels(db) } },
    { podSelector: { matchLabels: { ...commonLabels(db), [LABEL_COMPONENT]: BACKUP_COMPONENT } } },
  ];
  const operator: V1NetworkPolicyPeer = {
    namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: operatorNamespace } },
  };
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: childMeta(input, namesOf(input).networkPolicy),
    spec: {
      podSelector: { matchLabels: selectorLabels(db) },
      policyTypes: ["Ingress"],
      ingress: [
        { from: ownPods, ports: [tcp(POSTGRES_PORT), tcp(PGBACKREST_TLS_PORT)] },
        { from: [operator], ports: [tcp(POSTGRES_PORT)] },
        // An empty `from` would let everyone in: no clients means no rule.
        ...(wanted.clients.length > 0
          ? [{ from: wanted.clients as V1NetworkPolicyPeer[], ports: [tcp(POSTGRES_PORT)] }]
          : []),
        ...(input.spec.monitoring.enabled
          ? [{ from: [{ namespaceSelector: {} }], ports: [tcp(METRICS_PORT)] }]
          : []),
      ],
    },
  };
}
