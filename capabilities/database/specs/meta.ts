/**
 * What every child object shares: the builder input, the owner reference and the metadata.
 */
import type { V1ObjectMeta, V1OwnerReference } from "@kubernetes/client-node";
import type { ResolvedSpec } from "../api/defaults";
import { childNames, commonLabels } from "../api/names";
import type { ChildNames } from "../api/names";
import { API_VERSION, KIND } from "../api/identity";

/** The owner's apiVersion and kind (from api/identity.ts, which, unlike api/database.ts, does not load pepr). */
export const OWNER_API_VERSION = API_VERSION;
export const OWNER_KIND = KIND;

/**
 * What a builder may read of the Database: its identity, when it was first initialized, and when
 * a rolling restart was last asked for.
 * Narrow by type, so that what reconcile remembers of a converged pass (the digest of its inputs,
 * reconcile/converged-children.ts) covers everything the children are built from.
 */
export interface BuildDatabase {
  metadata?: { name?: string; namespace?: string; uid?: string };
  status?: { initializedAt?: string; restart?: { requestedAt?: string } };
}

/** Input of every builder: the Database (for its identity) and its spec with defaults filled. */
export interface BuildInput {
  db: BuildDatabase;
  spec: ResolvedSpec;
  /** The instance that must be primary (status.targetPrimary); default `<db>-0`. */
  primary?: string;
  /**
   * StatefulSet replicas when they must differ from spec.instances: while scaling down, the
   * primary's ordinal stays until a switchover has moved the primary below the new count.
   */
  replicas?: number;
  /**
   * Some instance still runs a pod from before TLS (no certificates mounted): pg_hba.conf lets
   * the superuser stream and connect by password until every pod is replaced (ADR 0017).
   */
  tlsTransition?: boolean;
  /** The user's metrics queries that passed their checks (custom-queries.ts), by name. */
  customQueries?: Record<string, unknown>;
}

/** Metadata every built object carries: server-side apply needs name and namespace. */
export type ChildMeta = V1ObjectMeta & {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  ownerReferences: V1OwnerReference[];
};

/** A built object: apiVersion and kind set (server-side apply needs them), metadata complete. */
export type Child<T> = T & { apiVersion: string; kind: string; metadata: ChildMeta };

interface Identity {
  name: string;
  namespace: string;
  uid: string;
}

/**
 * Name, namespace and uid of the Database. Builders only see objects read from the API server,
 * which always have them; a missing one is a programming error, so this throws.
 */
export function identity(db: BuildDatabase): Identity {
  const { name, namespace, uid } = db.metadata ?? {};
  if (!name || !namespace || !uid) {
    throw new Error("Database metadata must have name, namespace and uid to build its children");
  }
  return { name, namespace, uid };
}

/** The controller reference to the Database: garbage collection deletes children with it. */
export function ownerReference(db: BuildDatabase): V1OwnerReference {
  const { name, uid } = identity(db);
  return {
    apiVersion: OWNER_API_VERSION,
    kind: OWNER_KIND,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Child names of this input's Database. */
export const namesOf = (input: BuildInput): ChildNames => childNames(identity(input.db).name);

/** Metadata of a child called `name`: the Database's namespace, common labels, owner reference. */
export function childMeta(
  input: BuildInput,
  name: string,
  extraLabels: Record<string, string> = {},
): ChildMeta {
  const id = identity(input.db);
  return {
    name,
    namespace: id.namespace,
    labels: { ...commonLabels(id.name), ...extraLabels },
    ownerReferences: [ownerReference(input.db)],
  };
}
