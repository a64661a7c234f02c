/**
 * What the cache keeps of an object. Memory per Database is most of what the watcher's size grows
 * with, and some of what the apiserver sends is never read or is the same for every Database:
 * - managedFields: only who wrote with which operation (cluster/field-manager.ts);
 * - a ConfigMap's long values (the instance scripts) once for all Databases (shared-texts.ts);
 * - a Pod's spec: only its volumes' names (instance/targets.ts: does it mount the TLS Secret?), its
 *   node, and its containers' names and images (ha/postgres-container.ts: the image an instance
 *   was started with; the status's image can name another tag of the same image). A Pod's spec is most of it (the StatefulSet's template with every default filled
 *   in), and its status is what pgkeeper reads;
 * - of a Pod's container statuses, what pgkeeper reads (names, image, readiness, restarts, states:
 *   failover, restore and image-pull diagnoses), not the mounts, ids and resources the kubelet
 *   lists (half of each status).
 * Always a copy when anything is cut: the caller's object may be shared or frozen.
 */
import { pick } from "ramda";
import { compactManagedFields } from "../cluster/field-manager";
import { KubeObject } from "../cluster/cluster";
import { SharedTexts } from "./shared-texts";

interface PodSpec {
  nodeName?: string;
  volumes?: { name?: string }[];
  containers?: { name?: string; image?: string }[];
}

const podSpecRead = (spec: PodSpec | undefined): PodSpec | undefined =>
  spec && {
    ...(spec.nodeName ? { nodeName: spec.nodeName } : {}),
    ...(spec.volumes ? { volumes: spec.volumes.map(v => ({ name: v.name })) } : {}),
    ...(spec.containers?.length
      ? { containers: spec.containers.map(c => ({ name: c.name, image: c.image })) }
      : {}),
  };

/** The fields of a container status pgkeeper reads (ha/, cluster/image-pull.ts, backup/). */
const CONTAINER_STATUS_READ = [
  "name",
  "image",
  "imageID",
  "ready",
  "started",
  "restartCount",
  "state",
  "lastState",
] as const;

type ContainerStatuses = Record<string, unknown>[] | undefined;

const statusesRead = (statuses: ContainerStatuses): ContainerStatuses =>
  statuses?.map(c => pick(CONTAINER_STATUS_READ, c));

const podStatusRead = (status: unknown): unknown => {
  if (!status || typeof status !== "object") return status;
  const s = status as {
    containerStatuses?: ContainerStatuses;
    initContainerStatuses?: ContainerStatuses;
  };
  return {
    ...s,
    ...(s.containerStatuses ? { containerStatuses: statusesRead(s.containerStatuses) } : {}),
    ...(s.initContainerStatuses
      ? { initContainerStatuses: statusesRead(s.initContainerStatuses) }
      : {}),
  };
};

/** A ConfigMap's data, whose long values `texts` holds once for every Database. */
const configMapData = (obj: KubeObject): Record<string, string> | undefined =>
  obj.kind === "ConfigMap" && obj.data && typeof obj.data === "object"
    ? (obj.data as Record<string, string>)
    : undefined;

export function slim(obj: KubeObject, texts?: SharedTexts): KubeObject {
  const managedFields = obj.metadata?.managedFields;
  const isPod = obj.kind === "Pod" && obj.spec !== undefined;
  const data = texts && configMapData(obj);
  if (!managedFields && !isPod && !data) return obj;
  return {
    ...obj,
    ...(managedFields
      ? { metadata: { ...obj.metadata, managedFields: compactManagedFields(managedFields) } }
      : {}),
    ...(isPod ? { spec: podSpecRead(obj.spec as PodSpec), status: podStatusRead(obj.status) } : {}),
    ...(data ? { data: texts.shareValues(data) } : {}),
  };
}
