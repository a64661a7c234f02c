/**
 * Operator configuration, read once from the environment of the watcher/admission process.
 * Every knob has a safe default; invalid values fall back to the default and are reported.
 */
export interface OperatorConfig {
  /**
   * Image for PostgreSQL when spec.image is unset; `{version}` is replaced by spec.version.
   * pgkeeper's own (`<PGKEEPER_IMAGE_REPOSITORY>/postgres:{version}`, built by
   * hack/images/build-all.sh, with pgBackRest) unless PGKEEPER_POSTGRES_IMAGE names another.
   */
  postgresImage: string;
  /**
   * The majors `postgresImage` exists for (PGKEEPER_POSTGRES_VERSIONS, comma-separated): a
   * Database of another major is refused unless it names its own spec.image.
   */
  postgresVersions: readonly string[];
  /**
   * Pull Secrets (names, in each Database's namespace) a Database gets when its spec names none
   * (PGKEEPER_IMAGE_PULL_SECRETS, comma-separated): for a registry that needs credentials.
   */
  imagePullSecrets: readonly string[];
  /**
   * The images a Database's spec.image may name (PGKEEPER_ALLOWED_IMAGES, comma-separated; empty:
   * any). An entry ending in `/` allows every image under it (`registry.example.com/pg/`); any
   * other entry one repository, any tag or digest (`registry.example.com/pg/postgres`). Off by
   * default: a platform that lets tenants run only its own images turns it on.
   */
  allowedImages: readonly string[];
  /**
   * The namespaces this install serves (PGKEEPER_WATCH_NAMESPACES, comma-separated; empty: the
   * whole cluster). Set, the watcher watches and caches only these namespaces (its Roles are only
   * there: the namespaced install, docs/install.md) and admission refuses a Database elsewhere.
   * Names are taken as written: a misspelt one is a namespace nobody uses, never "everywhere".
   */
  watchNamespaces: readonly string[];
  /** How many Databases reconcile at once (controller-runtime's MaxConcurrentReconciles). */
  maxConcurrentReconciles: number;
  /** Period of the drift check: every Database is re-reconciled this often. */
  resyncSeconds: number;
  /** First retry delay after a failed reconcile; doubles per failure up to the cap. */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** How often the operator probes each instance over SQL (failure detection, status). */
  probeIntervalMs: number;
  /** A probe that has not answered within this is a failure (a frozen server never answers). */
  probeTimeoutMs: number;
  /** Consecutive failed probes before the primary counts as failed. */
  probeFailureThreshold: number;
  /**
   * Probes reuse one session per instance; this often a probe also checks that the postmaster
   * still accepts new connections (a reused session cannot tell). ADR 0016.
   */
  probeAcceptCheckMs: number;
  /** Where the operator's pods run: each Database's NetworkPolicy lets this namespace in. */
  operatorNamespace: string;
  /**
   * How long each step of moving the backup certificates to another CA waits for the kubelet to
   * bring the changed Secret to every pod (pki/backup-tls.ts, ADR 0021).
   */
  trustOverlapSeconds: number;
}

/** Where pgkeeper's images are unless PGKEEPER_IMAGE_REPOSITORY says: the local cluster's. */
export const DEFAULT_IMAGE_REPOSITORY = "localhost/pgkeeper";
/**
 * The majors hack/images builds pgkeeper's image for, one per Debian suite served here: 15
 * (bookworm), 17 (trixie), 18 (forky). 14 and 16 are in none, and a default must never name an
 * image that does not exist. hack/images/majors.test.ts holds this list and the image scripts' in step.
 */
export const IMAGE_VERSIONS = ["15", "17", "18"] as const;

export const DEFAULT_CONFIG: OperatorConfig = {
  postgresImage: `${DEFAULT_IMAGE_REPOSITORY}/postgres:{version}`,
  postgresVersions: IMAGE_VERSIONS,
  imagePullSecrets: [],
  allowedImages: [],
  watchNamespaces: [],
  maxConcurrentReconciles: 4,
  resyncSeconds: 300,
  backoffBaseMs: 1000,
  backoffCapMs: 300_000,
  probeIntervalMs: 1000,
  probeTimeoutMs: 1500,
  probeFailureThreshold: 3,
  probeAcceptCheckMs: 5000,
  operatorNamespace: "pepr-system",
  trustOverlapSeconds: 600,
};

const positiveInt = (raw: string | undefined, fallback: number): number => {
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/**
 * A comma-separated list of majors; anything but numbers in it makes it fall back (admission
 * refuses unsupported majors anyway).
 */
const versions = (raw: string | undefined, fallback: readonly string[]): readonly string[] => {
  const listed = (raw ?? "")
    .split(",")
    .map(v => v.trim())
    .filter(v => v !== "");
  return listed.length > 0 && listed.every(v => /^[1-9][0-9]*$/.test(v))
    ? [...new Set(listed)].sort((a, b) => Number(a) - Number(b))
    : fallback;
};

/** A Secret's name: a DNS-1123 subdomain. */
const SECRET_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A comma-separated list, trimmed, without empty entries or repeats, in its order. */
const commaList = (raw: string | undefined): readonly string[] => [
  ...new Set(
    (raw ?? "")
      .split(",")
      .map(entry => entry.trim())
      .filter(entry => entry !== ""),
  ),
];

/** Comma-separated Secret names, without repeats; a name that cannot be a Secret's is dropped. */
const secretNames = (raw: string | undefined): readonly string[] => [
  ...new Set(
    (raw ?? "")
      .split(",")
      .map(name => name.trim())
      .filter(name => name.length <= 253 && SECRET_NAME.test(name)),
  ),
];

/** The image template: an explicit one, else `postgres:{version}` under the repository. */
const postgresImage = (env: Record<string, string | undefined>): string => {
  const repository = env.PGKEEPER_IMAGE_REPOSITORY?.trim().replace(/\/+$/, "");
  return (
    env.PGKEEPER_POSTGRES_IMAGE?.trim() ||
    (repository ? `${repository}/postgres:{version}` : DEFAULT_CONFIG.postgresImage)
  );
};

/** Reads the configuration from `env` (process.env by default). Pure given its argument. */
export function readConfig(env: Record<string, string | undefined> = process.env): OperatorConfig {
  return {
    postgresImage: postgresImage(env),
    postgresVersions: versions(env.PGKEEPER_POSTGRES_VERSIONS, DEFAULT_CONFIG.postgresVersions),
    imagePullSecrets: secretNames(env.PGKEEPER_IMAGE_PULL_SECRETS),
    allowedImages: commaList(env.PGKEEPER_ALLOWED_IMAGES),
    watchNamespaces: commaList(env.PGKEEPER_WATCH_NAMESPACES),
    maxConcurrentReconciles: positiveInt(
      env.PGKEEPER_MAX_CONCURRENT_RECONCILES,
      DEFAULT_CONFIG.maxConcurrentReconciles,
    ),
    resyncSeconds: positiveInt(env.PGKEEPER_RESYNC_SECONDS, DEFAULT_CONFIG.resyncSeconds),
    backoffBaseMs: positiveInt(env.PGKEEPER_BACKOFF_BASE_MS, DEFAULT_CONFIG.backoffBaseMs),
    backoffCapMs: positiveInt(env.PGKEEPER_BACKOFF_CAP_MS, DEFAULT_CONFIG.backoffCapMs),
    probeIntervalMs: positiveInt(env.PGKEEPER_PROBE_INTERVAL_MS, DEFAULT_CONFIG.probeIntervalMs),
    probeTimeoutMs: positiveInt(env.PGKEEPER_PROBE_TIMEOUT_MS, DEFAULT_CONFIG.probeTimeoutMs),
    probeFailureThreshold: positiveInt(
      env.PGKEEPER_PROBE_FAILURE_THRESHOLD,
      DEFAULT_CONFIG.probeFailureThreshold,
    ),
    probeAcceptCheckMs: positiveInt(
      env.PGKEEPER_PROBE_ACCEPT_CHECK_MS,
      DEFAULT_CONFIG.probeAcceptCheckMs,
    ),
    operatorNamespace:
      env.PGKEEPER_OPERATOR_NAMESPACE?.trim() ||
      env.POD_NAMESPACE?.trim() ||
      DEFAULT_CONFIG.operatorNamespace,
    trustOverlapSeconds: positiveInt(
      env.PGKEEPER_TRUST_OVERLAP_SECONDS,
      DEFAULT_CONFIG.trustOverlapSeconds,
    ),
  };
}

/** The image for a PostgreSQL major version according to the operator's configuration. */
export const defaultImageFor = (version: string, config: OperatorConfig): string =>
  config.postgresImage.split("{version}").join(version);

/** Whether this install serves Databases in `namespace` (every namespace when none are listed). */
export const servesNamespace = (namespace: string, config: OperatorConfig): boolean =>
  config.watchNamespaces.length === 0 || config.watchNamespaces.includes(namespace);

/** Whether the operator has an image for `version` (else spec.image must name one). */
export const hasImageFor = (version: string, config: OperatorConfig): boolean =>
  config.postgresVersions.includes(version);

let processConfig: OperatorConfig | undefined;

/** This process's configuration, read from its environment once. */
export const operatorConfig = (): OperatorConfig => (processConfig ??= readConfig());
