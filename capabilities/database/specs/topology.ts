/**
 * The ConfigMap `<db>-topology`, mounted at /topology in every instance: which instance must be
 * primary, and whether the Database ever held data. entrypoint.sh reads it at each start, so a former primary whose pod comes back after a
 * failover rejoins as a standby (pg_rewind) instead of starting a second primary. The kubelet
 * reads a ConfigMap through a watch when it starts a pod, so a new pod sees the current value.
 * Kept apart from `<db>-config` so a failover never changes the pods' config hash.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { instanceName } from "../api/names";
import { FILE_INITIALIZED, FILE_PRIMARY } from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";

const primaryOfInput = (input: BuildInput): string =>
  input.primary ?? instanceName(identity(input.db).name, 0);

/**
 * `initialized` is present once the Database has held data (status.initializedAt): an instance
 * without data then clones a primary, whatever its ordinal, and never runs initdb (pod 0 whose
 * volume was lost must not start an empty primary beside volumes that hold the data).
 */
export function buildTopologyConfigMap(input: BuildInput): Child<V1ConfigMap> {
  const initializedAt = input.db.status?.initializedAt;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: childMeta(input, namesOf(input).topologyConfigMap),
    data: {
      [FILE_PRIMARY]: primaryOfInput(input),
      ...(initializedAt ? { [FILE_INITIALIZED]: initializedAt } : {}),
    },
  };
}
