/**
 * The desired children of a Database, in apply order, and the ones that must not exist.
 *
 * Order: credentials and configuration before the pods that mount them, Services before the
 * StatefulSet (instances resolve `<db>-rw` at their first start), the ServiceAccount before the
 * pods that run as it, budgets after their pods.
 */
import type {
  V1ConfigMap,
  V1NetworkPolicy,
  V1PodDisruptionBudget,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
} from "@kubernetes/client-node";
import type { ChildKind } from "../api/kinds";
import { BackupTls, buildBackupTlsSecret } from "./backup-tls";
import { buildConfigMap, configHash } from "./configmap";
import { BuildInput, Child, namesOf } from "./meta";
import { buildNetworkPolicy } from "./network-policy";
import { buildPodDisruptionBudgets } from "./pdb";
import { buildAppSecret, buildSuperuserSecret } from "./secrets";
import { buildServiceAccount } from "./service-account";
import { buildServices } from "./services";
import { buildStatefulSet } from "./statefulset";
import { buildTopologyConfigMap } from "./topology";
import { buildCaSecret, buildTlsSecret, DatabaseTls } from "./tls";

export { buildBackupTlsSecret, serverDnsNames } from "./backup-tls";
export type { BackupTls } from "./backup-tls";
export { buildConfigMap, configHash } from "./configmap";
export { ownerReference } from "./meta";
export type { BuildInput, Child, ChildMeta } from "./meta";
export { buildNetworkPolicy } from "./network-policy";
export { buildPodDisruptionBudgets } from "./pdb";
export { buildAppSecret, buildSuperuserSecret } from "./secrets";
export { buildServiceAccount } from "./service-account";
export { buildServices } from "./services";
export { buildStatefulSet } from "./statefulset";
export { buildTopologyConfigMap } from "./topology";
export {
  buildCaSecret,
  buildTlsSecret,
  instanceServerName,
  postgresDnsNames,
  TLS_FILES,
} from "./tls";
export type { DatabaseTls } from "./tls";

/** Any object a Database owns. */
export type ChildObject =
  | Child<V1Secret>
  | Child<V1ConfigMap>
  | Child<V1Service>
  | Child<V1StatefulSet>
  | Child<V1PodDisruptionBudget>
  | Child<V1NetworkPolicy>
  | Child<V1ServiceAccount>;

/** A child by kind and name (the namespace is the Database's). */
export interface ChildRef {
  apiVersion: string;
  kind: ChildKind;
  name: string;
}

export interface Passwords {
  superuser: string;
  app: string;
}

/** The key material reconcile issues and keeps (pki/database-tls.ts, pki/backup-tls.ts). */
export interface KeyMaterial {
  tls: DatabaseTls;
  /** `<db>-backup-tls`'s, when the Database backs up to a store. */
  backupTls?: BackupTls;
}

/**
 * Every object that must exist for this Database, in apply order. Pure. `operatorNamespace` is
 * where the operator runs, which the NetworkPolicy lets in.
 */
export function desiredChildren(
  input: BuildInput,
  passwords: Passwords,
  keys: KeyMaterial,
  operatorNamespace: string,
): ChildObject[] {
  const configMap = buildConfigMap(input);
  const backupTlsSecret = buildBackupTlsSecret(input, keys.backupTls);
  // Before the pods: where the plugin enforces it, an instance is never reachable unguarded.
  const networkPolicy = buildNetworkPolicy(input, operatorNamespace);
  return [
    buildCaSecret(input, keys.tls),
    buildTlsSecret(input, keys.tls),
    buildSuperuserSecret(input, passwords.superuser, keys.tls.serverCa),
    buildAppSecret(input, passwords.app, keys.tls.serverCa),
    ...(backupTlsSecret ? [backupTlsSecret] : []),
    configMap,
    buildTopologyConfigMap(input),
    ...buildServices(input),
    ...(networkPolicy ? [networkPolicy] : []),
    buildServiceAccount(input),
    buildStatefulSet(input, configHash(configMap)),
    ...buildPodDisruptionBudgets(input),
  ];
}

/**
 * Children that must NOT exist for this spec, so the reconciler deletes them if present (after
 * checking they are ours): the budgets after scaling down, the backup TLS Secret without
 * an object store, the NetworkPolicy once spec.networkPolicy is off, the backup CronJob of earlier versions (backup.volume, removed). Derived from
 * the builders, so the two cannot disagree. The claim `<db>-backups` of earlier versions is never
 * listed: its backups are deleted only with the Database.
 */
export function obsoleteChildren(input: BuildInput): ChildRef[] {
  const names = namesOf(input);
  const optional: ChildRef[] = [
    { apiVersion: "policy/v1", kind: "PodDisruptionBudget", name: names.pdbPrimary },
    { apiVersion: "policy/v1", kind: "PodDisruptionBudget", name: names.pdbReplicas },
    { apiVersion: "batch/v1", kind: "CronJob", name: names.legacyBackupCronJob },
    { apiVersion: "v1", kind: "Secret", name: names.backupTlsSecret },
    { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", name: names.networkPolicy },
  ];
  const present = [
    ...buildPodDisruptionBudgets(input),
    input.spec.backup?.objectStore
      ? { kind: "Secret", metadata: { name: names.backupTlsSecret } }
      : undefined,
    input.spec.networkPolicy
      ? { kind: "NetworkPolicy", metadata: { name: names.networkPolicy } }
      : undefined,
  ].flatMap(o => (o ? [`${o.kind}/${o.metadata.name}`] : []));
  return optional.filter(c => !present.includes(`${c.kind}/${c.name}`));
}
