/**
 * The kinds pgkeeper manages, listed once: the informers watch the child kinds, the API client
 * builds paths only for these, and the read cache keys objects by them.
 */
import { API_VERSION, KIND } from "./identity";

/** Every kind reconcile reads and writes besides Database, as `apiVersion` and `kind`. */
export const CHILD_KINDS = [
  { apiVersion: "v1", kind: "Secret" },
  { apiVersion: "v1", kind: "ConfigMap" },
  { apiVersion: "v1", kind: "Service" },
  { apiVersion: "v1", kind: "Pod" },
  { apiVersion: "v1", kind: "PersistentVolumeClaim" },
  { apiVersion: "v1", kind: "ServiceAccount" },
  { apiVersion: "apps/v1", kind: "StatefulSet" },
  { apiVersion: "policy/v1", kind: "PodDisruptionBudget" },
  { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy" },
  { apiVersion: "batch/v1", kind: "CronJob" },
  { apiVersion: "batch/v1", kind: "Job" },
] as const;

export type ChildKind = (typeof CHILD_KINDS)[number]["kind"];

/** `apiVersion/kind`, e.g. "apps/v1/StatefulSet" or "v1/Secret": how the cache names a kind. */
export type KindKey = string;

export const kindKeyOf = (obj: { apiVersion?: string; kind?: string }): KindKey =>
  `${obj.apiVersion ?? ""}/${obj.kind ?? ""}`;

export const DATABASE_KIND: KindKey = kindKeyOf({ apiVersion: API_VERSION, kind: KIND });

/** Backups: not children (never owned by a Database), read and status-written by reconcile. */
export const BACKUP_REF = { apiVersion: API_VERSION, kind: "Backup" } as const;
export const BACKUP_KIND_KEY: KindKey = kindKeyOf(BACKUP_REF);

/**
 * The -rw Service's EndpointSlices: read, never cached or written, only when a Database is about
 * to be Ready (reconcile/service-routes.ts).
 */
export const ENDPOINT_SLICE_REF = {
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
} as const;

/** Kinds pgkeeper may read or write through the API (children and Database). */
export const MANAGED_KINDS: ReadonlySet<KindKey> = new Set([
  ...CHILD_KINDS.map(kindKeyOf),
  DATABASE_KIND,
  BACKUP_KIND_KEY,
  kindKeyOf(ENDPOINT_SLICE_REF),
]);
