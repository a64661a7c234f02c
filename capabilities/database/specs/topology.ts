/**
 * The ConfigMap `<db>-topology`, mounted at /topology in every instance: which instance must be
 * primary. entrypoint.sh reads it at each start, so a former primary whose pod comes back after a
 * failover rejoins as a standby (pg_rewind) instead of starting a second primary. The kubelet
 * reads a ConfigMap through a watch when it starts a pod, so a new pod sees the current value.
 * Kept apart from `<db>-config` so a failover never changes the pods' config hash.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { instanceName } from "../api/names";
import { FILE_PRIMARY } from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";

const primaryOfInput = (input: BuildInput): string =>
  input.primary ?? instanceName(identity(input.db).name, 0);

export function buildTopologyConfigMap(input: BuildInput): Child<V1ConfigMap> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: childMeta(input, namesOf(input).topologyConfigMap),
    data: { [FILE_PRIMARY]: primaryOfInput(input) },
  };
}
