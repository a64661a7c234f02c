/**
 * The Cluster port: every operation reconcile and HA perform against the Kubernetes API, behind
 * one small interface. api-cluster.ts implements it on the apiserver (lib/kube-api),
 * cache/cached-cluster.ts over a watch-fed cache, and test/unit/fake-cluster.ts in memory for
 * unit tests (test code stays out of the production tree).
 */
import { Database } from "../api/database";
import { DatabaseStatus } from "../api/database-schema";
import type { AccessMap } from "../lib/fence";
import { KubeObject, ObjectRef, OwnerReference } from "./objects";

export * from "./objects";

export interface EventInput {
  type: "Normal" | "Warning";
  /** UpperCamelCase, e.g. ChildrenCreated. */
  reason: string;
  message: string;
}

/** A Database by name, with the resourceVersion a write is based on (optimistic concurrency). */
export interface DatabaseVersion {
  namespace: string;
  name: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  /** Keep dependents (recreating a StatefulSet without touching its pods). */
  orphan?: boolean;
  /** Delete dependents too (a Job's pods: the API orphans them by default). */
  background?: boolean;
  /** Shortens a pod's termination (fencing a failed primary). */
  gracePeriodSeconds?: number;
  /** Delete only this very object, never a successor with the same name. */
  uid?: string;
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
   * Creates `obj` with our field manager; fails with 409 AlreadyExists when an object of that
   * name exists, whoever made it (one request where a read and an apply would take two).
   */
  create(obj: KubeObject): Promise<KubeObject>;
  /**
   * Turns our field manager's entry `entry` of `ref`'s managedFields from a create's (operation
   * Update) into an apply's, so that a later apply removes the fields it no longer sets. Fails
   * (422) when that entry is no longer ours at that position.
   */
  adoptCreatedFields(ref: ObjectRef, entry: number): Promise<KubeObject>;
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<void>;
  /**
   * Removes one annotation from the Database, only at this resourceVersion (409 otherwise: a
   * newer request written meanwhile is never dropped).
   */
  removeAnnotation(db: DatabaseVersion, key: string): Promise<Database>;
  /** Patches labels (null removes one). */
  patchLabels(ref: ObjectRef, labels: Record<string, string | null>): Promise<KubeObject>;
  /** Patches the PVC's storage request (volume expansion). */
  resizeClaim(ref: ObjectRef, size: string): Promise<KubeObject>;
  /** Adds an owner reference, keeping the others (a strategic merge by uid). */
  addOwnerReference(ref: ObjectRef, owner: OwnerReference): Promise<KubeObject>;
  /**
   * Merge-patches status (`null` removes a field). With a resourceVersion the write fails with a
   * 409 Conflict when the Database changed since: a stale view never overwrites a newer one.
   */
  patchStatus(db: DatabaseVersion, status: DatabaseStatusPatch): Promise<Database>;
  /** Merge-patches the status of another kind of ours (a Backup). */
  patchObjectStatus(ref: ObjectRef, status: Record<string, unknown>): Promise<KubeObject>;
  removeFinalizer(db: Database, finalizer: string): Promise<void>;
  /** Best effort: never throws (Events are optional; a failure is logged, the step goes on). */
  recordEvent(db: Database, event: EventInput): Promise<void>;
}

export type DatabaseStatusPatch = { [K in keyof DatabaseStatus]: DatabaseStatus[K] | null };

/**
 * Every method of the port, read or write. Wrappers (leadership guard, write counter) are built
 * from this map, and `satisfies` makes a method that is missing here a compile error: a new write
 * can never slip past the guard.
 */
export const CLUSTER_METHODS = {
  getDatabase: "read",
  get: "read",
  list: "read",
  apply: "write",
  create: "write",
  adoptCreatedFields: "write",
  delete: "write",
  removeAnnotation: "write",
  patchLabels: "write",
  resizeClaim: "write",
  addOwnerReference: "write",
  patchStatus: "write",
  patchObjectStatus: "write",
  removeFinalizer: "write",
  recordEvent: "write",
} as const satisfies AccessMap<Cluster>;
