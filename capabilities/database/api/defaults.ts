/**
 * Defaults of the Database spec, in one pure function used by both the Mutate webhook (which
 * writes them into the object) and reconcile (which reads every spec through it, so a Database
 * admitted while the webhook was down still converges to the same children).
 */
import { DatabaseSpec, PostgresVersion } from "./database-schema";

const DEFAULT_INSTANCES = 1;
const DEFAULT_ANTI_AFFINITY = "preferred" as const;
const DEFAULT_FAILOVER_DELAY_SECONDS = 0;
export const DEFAULT_BACKUP_RETENTION = 7;
/** A replica further behind than this leaves `<db>-ro`. */
const DEFAULT_MAX_READ_LAG = "64Mi";
/** Who may connect when spec.networkPolicy names no clients: every pod of the namespace. */
export const DEFAULT_NETWORK_CLIENTS: Record<string, unknown>[] = [{ podSelector: {} }];

/** A store with its defaults; a recovery source's has no `path` (its repositoryPath is whole). */
export interface ResolvedStoreAccess {
  endpoint: string;
  bucket: string;
  region: string;
  uriStyle: "path" | "host";
  credentials: { secretName: string; accessKeyIdKey: string; secretAccessKeyKey: string };
  ca?: { secretName: string; key: string };
}

/** This Database's own store: `path` prefixes its repository. */
export interface ResolvedObjectStore extends ResolvedStoreAccess {
  path: string;
}

export const DEFAULT_ARCHIVE_TIMEOUT_SECONDS = 60;

type Recovery = NonNullable<NonNullable<DatabaseSpec["bootstrap"]>["recovery"]>;

/** bootstrap.recovery with its store's defaults filled (the source's store, not this Database's). */
export interface ResolvedRecovery {
  source: { objectStore: ResolvedStoreAccess; repositoryPath: string };
  backupSet?: string;
  target?: NonNullable<Recovery["target"]>;
}

/** A spec with every defaultable field filled; what builders and reconcile work from. */
export interface ResolvedSpec {
  version: PostgresVersion;
  image: string;
  imagePullSecrets?: { name: string }[];
  instances: number;
  storage: { size: string; storageClassName?: string };
  resources: {
    requests?: { cpu?: string; memory?: string };
    limits?: { cpu?: string; memory?: string };
  };
  scheduling: {
    nodeSelector?: Record<string, string>;
    tolerations?: Record<string, unknown>[];
    affinity?: Record<string, unknown>;
    antiAffinity: "preferred" | "required" | "none";
    topologySpread?: TopologySpread[];
  };
  postgresql: {
    parameters: Record<string, string>;
    synchronous: { mode: "off" | "quorum"; number?: number };
  };
  failover: { enabled: boolean; delaySeconds: number; promoteAfterFenceTimeout: boolean };
  readOnly: { maxLag: string };
  backup?: {
    objectStore?: ResolvedObjectStore;
    /** Set (defaulted) whenever objectStore is: admission refuses it alone. */
    archiveTimeoutSeconds?: number;
    schedule?: string;
    /** Set (defaulted) whenever objectStore is: admission refuses it alone. */
    retention?: number;
    retentionDays?: number;
    /** Removed: refused, except unchanged on a Database admitted by an earlier version. */
    volume?: { size?: string; storageClassName?: string };
  };
  bootstrap?: {
    restore?: { source: string; backup?: string };
    recovery?: ResolvedRecovery;
  };
  /** Secure unless said otherwise: plaintext refused, superuser network logins by certificate. */
  tls: { allowPlaintext: boolean; serverSecretName?: string };
  enableSuperuserAccess: boolean;
  /** Present when the Database keeps a NetworkPolicy; absent (off) when unset or false. */
  networkPolicy?: { enabled: true; clients: Record<string, unknown>[] };
  /** On unless set false (ADR 0043). */
  monitoring: { enabled: boolean; customQueries: { name: string; key: string }[] };
  paused: boolean;
}

/** One spec.scheduling.topologySpread entry, its defaults filled. */
export interface TopologySpread {
  topologyKey: string;
  maxSkew: number;
  whenUnsatisfiable: "ScheduleAnyway" | "DoNotSchedule";
  minDomains?: number;
}

/**
 * Fills defaults into `spec`. `defaultImage` gives the image for a version (operator config).
 * Never throws on a malformed spec: it only fills what is absent, validation reports the rest.
 */
export function withDefaults(
  spec: DatabaseSpec,
  defaultImage: (version: string) => string,
): ResolvedSpec {
  const { backup, bootstrap, networkPolicy, monitoring, ...rest } = spec;
  return {
    ...rest,
    image: spec.image ?? defaultImage(spec.version),
    instances: spec.instances ?? DEFAULT_INSTANCES,
    resources: spec.resources ?? {},
    scheduling: schedulingDefaults(spec.scheduling),
    postgresql: postgresqlDefaults(spec.postgresql),
    failover: failoverDefaults(spec.failover),
    readOnly: { ...spec.readOnly, maxLag: spec.readOnly?.maxLag ?? DEFAULT_MAX_READ_LAG },
    ...(backup ? { backup: backupDefaults(backup) } : {}),
    ...(bootstrap ? { bootstrap: bootstrapDefaults(bootstrap) } : {}),
    ...securityDefaults(spec),
    ...networkPolicyDefaults(networkPolicy),
    monitoring: monitoringDefaults(monitoring),
    paused: spec.paused ?? false,
  };
}

const schedulingDefaults = (scheduling: DatabaseSpec["scheduling"]): ResolvedSpec["scheduling"] => {
  const { topologySpread, ...rest } = scheduling ?? {};
  return {
    ...rest,
    antiAffinity: rest.antiAffinity ?? DEFAULT_ANTI_AFFINITY,
    ...(topologySpread
      ? {
          topologySpread: topologySpread.map(t => ({
            ...t,
            maxSkew: t.maxSkew ?? 1,
            whenUnsatisfiable: t.whenUnsatisfiable ?? "ScheduleAnyway",
          })),
        }
      : {}),
  };
};

/** On unless the spec says false: every instance's metrics (ADR 0043). */
const monitoringDefaults = (
  monitoring: DatabaseSpec["monitoring"],
): ResolvedSpec["monitoring"] => ({
  enabled: monitoring?.enabled ?? true,
  customQueries: monitoring?.customQueries ?? [],
});

/** On only when the spec says so (Mutate says so for every new Database, ADR 0018). */
const networkPolicyDefaults = (
  networkPolicy: DatabaseSpec["networkPolicy"],
): Pick<ResolvedSpec, "networkPolicy"> =>
  networkPolicy?.enabled === true
    ? {
        networkPolicy: {
          enabled: true,
          clients: networkPolicy.clients ?? structuredClone(DEFAULT_NETWORK_CLIENTS),
        },
      }
    : {};

/** Secure unless the spec says otherwise (ADR 0017). */
const securityDefaults = (
  spec: DatabaseSpec,
): Pick<ResolvedSpec, "tls" | "enableSuperuserAccess"> => ({
  tls: { ...spec.tls, allowPlaintext: spec.tls?.allowPlaintext ?? false },
  enableSuperuserAccess: spec.enableSuperuserAccess ?? false,
});

function backupDefaults(
  backup: NonNullable<DatabaseSpec["backup"]>,
): NonNullable<ResolvedSpec["backup"]> {
  const { objectStore, ...rest } = backup;
  return {
    ...rest,
    ...(objectStore
      ? {
          objectStore: { ...storeAccessDefaults(objectStore), path: objectStore.path ?? "/" },
          retention: backup.retention ?? DEFAULT_BACKUP_RETENTION,
          archiveTimeoutSeconds: backup.archiveTimeoutSeconds ?? DEFAULT_ARCHIVE_TIMEOUT_SECONDS,
        }
      : {}),
  };
}

function bootstrapDefaults(
  bootstrap: NonNullable<DatabaseSpec["bootstrap"]>,
): NonNullable<ResolvedSpec["bootstrap"]> {
  const { recovery, ...rest } = bootstrap;
  if (!recovery) return rest;
  return {
    ...rest,
    recovery: {
      ...recovery,
      source: { ...recovery.source, objectStore: storeAccessDefaults(recovery.source.objectStore) },
    },
  };
}

/**
 * A store's defaults, `path` aside: the Mutate webhook writes these into the object, and a path
 * written into a recovery source would be refused there (it does not apply).
 */
function storeAccessDefaults(
  store: NonNullable<NonNullable<DatabaseSpec["backup"]>["objectStore"]>,
): ResolvedStoreAccess {
  const { ca, path: _path, ...rest } = store;
  return {
    ...rest,
    region: store.region ?? "us-east-1",
    uriStyle: store.uriStyle ?? "path",
    credentials: {
      ...store.credentials,
      accessKeyIdKey: store.credentials.accessKeyIdKey ?? "accessKeyId",
      secretAccessKeyKey: store.credentials.secretAccessKeyKey ?? "secretAccessKey",
    },
    ...(ca ? { ca: { ...ca, key: ca.key ?? "ca.crt" } } : {}),
  };
}

function postgresqlDefaults(postgresql: DatabaseSpec["postgresql"]): ResolvedSpec["postgresql"] {
  const synchronous = postgresql?.synchronous ?? {};
  return {
    parameters: postgresql?.parameters ?? {},
    synchronous: { ...synchronous, mode: synchronous.mode ?? "off" },
  };
}

function failoverDefaults(failover: DatabaseSpec["failover"]): ResolvedSpec["failover"] {
  return {
    enabled: failover?.enabled ?? true,
    delaySeconds: failover?.delaySeconds ?? DEFAULT_FAILOVER_DELAY_SECONDS,
    promoteAfterFenceTimeout: failover?.promoteAfterFenceTimeout ?? false,
  };
}
