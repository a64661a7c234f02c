/**
 * Kubernetes objects as plain JSON, references to them, and the few Pod fields pgkeeper reads.
 */

/** Any Kubernetes object as plain JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string | Date;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    deletionTimestamp?: string | Date;
    finalizers?: string[];
    managedFields?: ManagedFieldsEntry[];
  };
  spec?: unknown;
  status?: unknown;
  data?: unknown;
}

/** One writer's entry in metadata.managedFields (the cache keeps no fieldsV1 or time). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  apiVersion?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  time?: string | Date;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export const refOf = (obj: KubeObject): ObjectRef => ({
  apiVersion: obj.apiVersion ?? "",
  kind: obj.kind ?? "",
  namespace: obj.metadata?.namespace ?? "",
  name: obj.metadata?.name ?? "",
});

export const describeRef = (ref: Pick<ObjectRef, "kind" | "name">): string =>
  `${ref.kind} ${ref.name}`;

export const isTerminating = (obj: KubeObject): boolean => !!obj.metadata?.deletionTimestamp;

/** The pod's Ready condition; a terminating pod is never ready, whatever its condition says. */
export const isPodReady = (pod: KubeObject): boolean =>
  !isTerminating(pod) &&
  (
    (pod.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ??
    []
  ).some(c => c.type === "Ready" && c.status === "True");

export const podIP = (pod: KubeObject | undefined): string | undefined =>
  (pod?.status as { podIP?: string } | undefined)?.podIP;
