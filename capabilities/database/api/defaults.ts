/**
 * Defaults of the Database spec, in one pure function used by both the Mutate webhook (which
 * writes them into the object) and reconcile (which reads every spec through it, so a Database
 * admitted while the webhook was down still converges to the same children).
 */
import { DatabaseSpec, PostgresVersion } from "./database-schema";

const DEFAULT_INSTANCES = 1;
const DEFAULT_ANTI_AFFINITY = "preferred" as const;
const DEFAULT_FAILOVER_DELAY_SECONDS = 0;
const DEFAULT_BACKUP_RETENTION = 7;
/** A replica further behind than this leaves `<db>-ro`. */
const DEFAULT_MAX_READ_LAG = "64Mi";

/** A spec with every defaultable field filled; what builders and reconcile work from. */
export interface ResolvedSpec {
  version: PostgresVersion;
  image: string;
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
  };
  postgresql: {
    parameters: Record<string, string>;
    synchronous: { mode: "off" | "quorum"; number?: number };
  };
  failover: { enabled: boolean; delaySeconds: number; promoteAfterFenceTimeout: boolean };
  readOnly: { maxLag: string };
  backup?: {
    schedule?: string;
    retention: number;
    volume?: { size: string; storageClassName?: string };
  };
  bootstrap?: { restore?: { source: string; backup?: string } };
  paused: boolean;
}

/**
 * Fills defaults into `spec`. `defaultImage` gives the image for a version (operator config).
 * Never throws on a malformed spec: it only fills what is absent, validation reports the rest.
 */
export function withDefaults(
  spec: DatabaseSpec,
  defaultImage: (version: string) => string,
): ResolvedSpec {
  const { backup, ...rest } = spec;
  return {
    ...rest,
    image: spec.image ?? defaultImage(spec.version),
    instances: spec.instances ?? DEFAULT_INSTANCES,
    resources: spec.resources ?? {},
    scheduling: {
      ...spec.scheduling,
      antiAffinity: spec.scheduling?.antiAffinity ?? DEFAULT_ANTI_AFFINITY,
    },
    postgresql: postgresqlDefaults(spec.postgresql),
    failover: failoverDefaults(spec.failover),
    readOnly: { ...spec.readOnly, maxLag: spec.readOnly?.maxLag ?? DEFAULT_MAX_READ_LAG },
    ...(backup
      ? { backup: { ...backup, retention: backup.retention ?? DEFAULT_BACKUP_RETENTION } }
      : {}),
    paused: spec.paused ?? false,
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
