/**
 * Services: `<db>-rw` and `<db>-ro` route by the role label the operator puts on instance pods
 * (so a failover is a relabel), `<db>-hl` is the StatefulSet's headless governing Service.
 * `<db>-rw` follows the label alone, ready or not (ADR 0035): the operator takes the label off
 * before anything else when it fences a primary, and a primary restarted in place serves as soon
 * as PostgreSQL accepts connections, not at the kubelet's next probe. `<db>-ro` keeps the pod's
 * readiness, which the startup probe gives once the server is consistent (ADR 0039): a replica
 * serves reads from then on, until the operator relabels it.
 */
import type { V1Service, V1ServicePort } from "@kubernetes/client-node";
import { LABEL_ROLE, selectorLabels } from "../api/names";
import type { Role } from "../api/names";
import { POSTGRES_PORT, POSTGRES_PORT_NAME } from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";

const ports: V1ServicePort[] = [
  { name: POSTGRES_PORT_NAME, port: POSTGRES_PORT, targetPort: POSTGRES_PORT, protocol: "TCP" },
];

/** Pods of this Database with `role`. */
export const roleSelector = (db: string, role: Role): Record<string, string> => ({
  ...selectorLabels(db),
  [LABEL_ROLE]: role,
});

function roleService(input: BuildInput, name: string, role: Role): Child<V1Service> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: childMeta(input, name),
    spec: {
      type: "ClusterIP",
      selector: roleSelector(identity(input.db).name, role),
      ports,
      ...(role === "primary" ? { publishNotReadyAddresses: true } : {}),
    },
  };
}

/**
 * The headless Service gives every pod a stable DNS name. It publishes pods that are not ready
 * yet, so an instance that is still starting or cloning is already resolvable and visible to
 * its peers.
 */
function headlessService(input: BuildInput): Child<V1Service> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: childMeta(input, namesOf(input).headlessService),
    spec: {
      clusterIP: "None",
      publishNotReadyAddresses: true,
      selector: selectorLabels(identity(input.db).name),
      ports,
    },
  };
}

/** `<db>-rw`, `<db>-ro`, `<db>-hl`, in that order. */
export function buildServices(input: BuildInput): Child<V1Service>[] {
  const names = namesOf(input);
  return [
    roleService(input, names.rwService, "primary"),
    roleService(input, names.roService, "replica"),
    headlessService(input),
  ];
}
