/**
 * Whether `<db>-rw` routes to the primary yet: its EndpointSlices name the primary's pod. The
 * role label moves first, the endpoints follow a moment later, and a client that connects once
 * the Database is Ready must reach the primary: so Ready waits for this (asked only when the
 * Database is about to become Ready, so an API list, not a cache of every Service's endpoints).
 */
import { ENDPOINT_SLICE_REF } from "../api/kinds";
import { childNames } from "../api/names";
import type { Cluster } from "../cluster/cluster";

/** The label the EndpointSlice controller puts on each slice of a Service. */
const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

interface Endpoint {
  conditions?: { ready?: boolean };
  targetRef?: { kind?: string; name?: string };
}

export async function rwRoutesTo(
  cluster: Cluster,
  namespace: string,
  db: string,
  primary: string,
): Promise<boolean> {
  const slices = await cluster.list(ENDPOINT_SLICE_REF, namespace, {
    [SERVICE_NAME_LABEL]: childNames(db).rwService,
  });
  return slices.some(slice =>
    ((slice as { endpoints?: Endpoint[] }).endpoints ?? []).some(
      e =>
        e.targetRef?.kind === "Pod" &&
        e.targetRef.name === primary &&
        e.conditions?.ready !== false,
    ),
  );
}
