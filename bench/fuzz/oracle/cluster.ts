/**
 * What admission reads from the cluster for a recovery (CRD description of repositoryPath: "The
 * store's Secrets must exist in this namespace"; a source Database that still exists with the
 * same uid must be of this version). Without such a view those rules are undecidable.
 */
export interface ClusterView {
  /** The namespace the Database is created in. */
  namespace: string;
  /** Every Secret in that namespace. */
  secrets: ReadonlySet<string>;
  /** Every Database in the cluster, by "namespace/name". */
  databases: ReadonlyMap<string, { uid: string; version: string }>;
}
