/**
 * The operations reconcile performs against the Kubernetes API, behind one small interface:
 * api-cluster.ts implements it on the apiserver (lib/kube-api), testing/fake-cluster.ts in memory.
 */
import { Database } from "../api/database";
import { DatabaseStatus } from "../api/database-schema";

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
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: {
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }[];
    deletionTimestamp?: string | Date;
    finalizers?: string[];
  };
  spec?: unknown;
  status?: unknown;
  data?: unknown;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface EventInput {
  type: "Normal" | "Warning";
  /** UpperCamelCase, e.g. ChildrenCreated. */
  reason: string;
  message: string;
}

export interface Cluster {
  getDatabase(namespace: string, name: string): Promise<Database | undefined>;
  /**
   * `missingIsAbsent`: the caller only cares about objects pgkeeper labelled (e.g. pruning), so a
   * cached Cluster may answer a miss from its synced cache instead of asking the apiserver.
   */
  get(ref: ObjectRef, options?: { missingIsAbsent?: boolean }): Promise<KubeObject | undefined>;
  list(
    kind: Pick<ObjectRef, "apiVersion" | "kind">,
    namespace: string,
    labels: Record<string, string>,
  ): Promise<KubeObject[]>;
  /** Server-side apply with our field manager, forcing ownership of the fields we set. */
  apply(obj: KubeObject): Promise<KubeObject>;
  /**
   * `orphan` keeps dependents (used to recreate a StatefulSet without touching its pods);
   * `gracePeriodSeconds` shortens a pod's termination (fencing a failed primary).
   */
  delete(
    ref: ObjectRef,
    options?: { orphan?: boolean; gracePeriodSeconds?: number },
  ): Promise<void>;
  /** Removes one annotation from the Database if it still has the value we read. */
  removeAnnotation(db: Database, key: string): Promise<void>;
  /** Merge-patches labels (null removes one); may return the patched object. */
  patchLabels(ref: ObjectRef, labels: Record<string, string | null>): Promise<KubeObject | void>;
  /** Merge-patches the PVC's storage request (volume expansion); may return the claim. */
  resizeClaim(ref: ObjectRef, size: string): Promise<KubeObject | void>;
  /** Merge-patches status; `null` values remove fields; may return the patched Database. */
  patchStatus(db: Database, status: DatabaseStatusPatch): Promise<Database | void>;
  removeFinalizer(db: Database, finalizer: string): Promise<void>;
  recordEvent(db: Database, event: EventInput): Promise<void>;
}

export type DatabaseStatusPatch = { [K in keyof DatabaseStatus]: DatabaseStatus[K] | null };

export const refOf = (obj: KubeObject): ObjectRef => ({
  apiVersion: obj.apiVersion ?? "",
  kind: obj.kind ?? "",
  namespace: obj.metadata?.namespace ?? "",
  name: obj.metadata?.name ?? "",
});

export const describeRef = (ref: Pick<ObjectRef, "kind" | "name">): string =>
  `${ref.kind} ${ref.name}`;
