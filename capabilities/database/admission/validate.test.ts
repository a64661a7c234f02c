import { formatDenials, validateDatabase as validateWith } from "./validate";
import { SUPPORTED_VERSIONS } from "../api/database-schema";
import { DEFAULT_CONFIG, OperatorConfig } from "../lib/config";
import { RULES } from "./rules";
import { storageSizeRule } from "./rules/storage";

/**
 * An operator with an image for every major, so the cases here (on PostgreSQL 16, which has none
 * by default) test their own rule; the version-image rule has its cases below.
 */
const EVERY_IMAGE: OperatorConfig = { ...DEFAULT_CONFIG, postgresVersions: SUPPORTED_VERSIONS };
const validateDatabase = (db: unknown, old?: unknown, config = EVERY_IMAGE) =>
  validateWith(db, old, config);

type Spec = Record<string, unknown>;

/** A valid Database with `spec` fields replaced (shallowly) by `overrides`. */
const db = (overrides: Spec = {}, name = "orders"): Record<string, unknown> => ({
  apiVersion: "pgkeeper.dev/v1alpha1",
  kind: "Database",
  metadata: { name, namespace: "shop" },
  spec: { version: "16", storage: { size: "10Gi" }, ...overrides },
});

const withStatus = (
  database: Record<string, unknown>,
  status: Record<string, unknown>,
): Record<string, unknown> => ({ ...database, status });

const FULL: Spec = {
  version: "17",
  image: "ghcr.io/acme/postgres:17.2@sha256:" + "a".repeat(64),
  instances: 3,
  storage: { size: "20Gi", storageClassName: "fast" },
  resources: { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: 2, memory: "2Gi" } },
  scheduling: {
    nodeSelector: { "kubernetes.io/os": "linux", disk: "" },
    tolerations: [
      { key: "db", operator: "Exists", effect: "NoSchedule" },
      { key: "zone", operator: "Equal", value: "a", effect: "NoExecute", tolerationSeconds: 30 },
    ],
    affinity: { nodeAffinity: {} },
    antiAffinity: "required",
  },
  postgresql: {
    parameters: {
      shared_buffers: "512MB",
      shared_preload_libraries: "pg_stat_statements",
      "pg_stat_statements.max": "10000",
      log_line_prefix: "'%m [%p] '",
    },
    synchronous: { mode: "quorum", number: 1 },
  },
  failover: { enabled: false, delaySeconds: 3600 },
  backup: {
    objectStore: { endpoint: "s3.example", bucket: "pg", credentials: { secretName: "s3" } },
    archiveTimeoutSeconds: 30,
    schedule: "0 3 * * 1-5",
    retention: 365,
    retentionDays: 3650,
  },
  paused: true,
};

const three = { instances: 3 };
const quorum = (number?: number): Spec => ({
  postgresql: { synchronous: { mode: "quorum", ...(number === undefined ? {} : { number }) } },
});
const params = (parameters: Record<string, unknown>): Spec => ({ postgresql: { parameters } });
const backup = (b: Spec): Spec => ({ backup: b });
const STORE = { endpoint: "s3.example", bucket: "pg", credentials: { secretName: "s3" } };
/** A backup section with an object store, which schedule and retention need. */
const stored = (b: Spec): Spec => backup({ objectStore: STORE, ...b });
const scheduling = (s: Spec): Spec => ({ scheduling: s });
const restoreFrom = (source: string): Spec => ({ bootstrap: { restore: { source } } });
const recoverFrom = (
  target?: Record<string, unknown>,
  extra: { backupSet?: string; repositoryPath?: string; storePath?: string } = {},
): Spec => ({
  bootstrap: {
    recovery: {
      source: {
        objectStore: {
          endpoint: "s3.example.internal",
          bucket: "pg",
          ...(extra.storePath ? { path: extra.storePath } : {}),
          credentials: { secretName: "s3" },
        },
        repositoryPath: extra.repositoryPath ?? "/prod/orders/1b2c",
      },
      ...(extra.backupSet ? { backupSet: extra.backupSet } : {}),
      ...(target ? { target } : {}),
    },
  },
});

/** [title, object, stored object (UPDATE) or undefined, expected message parts ([] = admitted)] */
/** Title, object, stored object, expected parts of the message, and the operator's config. */
type Case = [string, unknown, unknown, string[], OperatorConfig?];

const CASES: Case[] = [
  // Structure: malformed types never throw, they get a denial naming the field.
  ["minimal spec", db(), undefined, []],
  ["every field set", db(FULL), undefined, []],
  ["not an object", null, undefined, ["(root): must be a Database object, got null"]],
  ["spec missing", { metadata: { name: "orders" } }, undefined, ["spec: is required"]],
  [
    "spec a string",
    { metadata: { name: "orders" }, spec: "x" },
    undefined,
    ["spec: must be an object"],
  ],
  [
    "metadata not an object",
    { metadata: "orders", spec: {} },
    undefined,
    ["metadata: must be an object"],
  ],
  [
    "name not a string",
    { metadata: { name: 5 }, spec: db().spec },
    undefined,
    ["metadata.name: must be a string, got 5"],
  ],
  [
    "version missing",
    db({ version: undefined }),
    undefined,
    ["spec.version: is required (one of 14, 15, 16, 17, 18)"],
  ],
  ["version a number", db({ version: 16 }), undefined, ["spec.version: must be a string, got 16"]],
  ["storage missing", db({ storage: undefined }), undefined, ["spec.storage: is required"]],
  ["storage null", db({ storage: null }), undefined, ["spec.storage: must be an object, got null"]],
  ["storage.size missing", db({ storage: {} }), undefined, ["spec.storage.size: is required"]],
  [
    "instances a string",
    db({ instances: "3" }),
    undefined,
    ['spec.instances: must be an integer, got the string "3"'],
  ],
  [
    "instances fractional",
    db({ instances: 2.5 }),
    undefined,
    ["spec.instances: must be an integer, got 2.5"],
  ],
  [
    "parameter value a number",
    db(params({ work_mem: 64 })),
    undefined,
    ["spec.postgresql.parameters[work_mem]: must be a string, got 64"],
  ],
  [
    "parameters a list",
    db(params(["a"] as unknown as Record<string, unknown>)),
    undefined,
    ["spec.postgresql.parameters: must be a map, got a list"],
  ],
  [
    "tolerations not a list",
    db(scheduling({ tolerations: { key: "a" } })),
    undefined,
    ["spec.scheduling.tolerations: must be a list, got an object"],
  ],
  [
    "toleration not an object",
    db(scheduling({ tolerations: ["a"] })),
    undefined,
    ["spec.scheduling.tolerations[0]: must be an object"],
  ],
  [
    "nodeSelector value not a string",
    db(scheduling({ nodeSelector: { disk: 1 } })),
    undefined,
    ["spec.scheduling.nodeSelector[disk]: must be a string"],
  ],
  [
    "cpu a boolean",
    db({ resources: { requests: { cpu: true } } }),
    undefined,
    ["spec.resources.requests.cpu: must be a quantity"],
  ],
  [
    "paused not a boolean",
    db({ paused: "yes" }),
    undefined,
    ['spec.paused: must be true or false, got the string "yes"'],
  ],
  [
    "failover.enabled a string",
    db({ failover: { enabled: "true" } }),
    undefined,
    ["spec.failover.enabled: must be true or false"],
  ],
  [
    "image too long",
    db({ image: "a".repeat(513) }),
    undefined,
    ["spec.image: must be at most 512 characters, got 513"],
  ],
  [
    "several type errors",
    db({ instances: "3", paused: 1 }),
    undefined,
    ["spec.instances: must be an integer", "; spec.paused: must be true or false"],
  ],

  // metadata.name
  [
    "name too long",
    db({}, "a".repeat(51)),
    undefined,
    ["metadata.name: is 51 characters; at most 50"],
  ],
  [
    "name with uppercase",
    db({}, "My_DB"),
    undefined,
    ['metadata.name: "My_DB" must start with a lowercase letter'],
  ],
  ["name starting with a digit", db({}, "1db"), undefined, ["metadata.name:"]],
  ["name of 50 characters", db({}, "a".repeat(50)), undefined, []],

  // version
  [
    "unsupported version",
    db({ version: "13" }),
    undefined,
    ['spec.version: "13" is not supported; supported versions: 14, 15, 16, 17, 18'],
  ],
  // A major upgrade (ADR 0041): the version rises alone; it falls only back to the data's major.
  ["version raised alone: a major upgrade", db({ version: "17" }), db({ version: "15" }), []],
  [
    "version raised with an image of the new major",
    db({ version: "17", image: "registry.example/postgres:17" }),
    db({ version: "15", image: "registry.example/postgres:15" }),
    [],
  ],
  [
    "version raised to 18 with pgkeeper's image: pg_upgrade cannot, named before anything stops",
    db({ version: "18", image: "localhost/pgkeeper/postgres:18" }),
    db({ version: "17", image: "localhost/pgkeeper/postgres:17" }),
    [
      "spec.version: cannot rise from 17 to 18 with pgkeeper's images: their PostgreSQL 17 keeps a column option (pg_attver) that PostgreSQL 18's refuses, so pg_upgrade would fail after every instance stopped; move to 18 by logical replication into a new Database (wal_level: logical), or name images that can in spec.image",
    ],
  ],
  [
    "version raised to 18 with an image the user names: theirs to judge",
    db({ version: "18", image: "registry.example/postgres:18" }),
    db({ version: "17", image: "registry.example/postgres:17" }),
    [],
  ],
  [
    "version raised with another change: two steps",
    db({ version: "16", instances: 2 }),
    db({ version: "15" }),
    [
      "spec.version: a major upgrade from 15 to 16 changes spec.version alone (and spec.image, to an image of PostgreSQL 16): apply the other changes in a separate update, before or after it",
    ],
  ],
  [
    "version raised while an upgrade is under way",
    db({ version: "18" }),
    withStatus(db({ version: "17" }), { version: "15", upgrade: { phase: "Stopping", to: "17" } }),
    [
      "spec.version: cannot change to 18 while the upgrade to 17 is under way (status.upgrade.phase Stopping)",
    ],
  ],
  [
    "version raised again after a failed upgrade: set back first",
    db({ version: "18" }),
    withStatus(db({ version: "17" }), { version: "15", upgrade: { phase: "Failed", to: "17" } }),
    [
      "spec.version: cannot rise to 18: the data directory is PostgreSQL 15's (the upgrade to 17 did not complete); set spec.version back to 15 first",
    ],
  ],
  [
    "version set back to the data's major after a failed upgrade",
    db({ version: "15" }),
    withStatus(db({ version: "17" }), { version: "15", upgrade: { phase: "Failed", to: "17" } }),
    [],
  ],
  [
    "version set back before the conversion ran",
    db({ version: "15" }),
    withStatus(db({ version: "17" }), { version: "15", upgrade: { phase: "Waiting", to: "17" } }),
    [],
  ],
  [
    "version set back while the data is converted",
    db({ version: "15" }),
    withStatus(db({ version: "17" }), { version: "15", upgrade: { phase: "Upgrading", to: "17" } }),
    [
      "spec.version: cannot go back to 15 now: the data directory is being converted to PostgreSQL 17; wait for status.upgrade to end",
    ],
  ],
  [
    "version set back after the data was converted",
    db({ version: "15" }),
    withStatus(db({ version: "17" }), { version: "17", upgrade: { phase: "Starting", to: "17" } }),
    [
      "spec.version: cannot go down from 17 to 15: PostgreSQL 15 cannot read data PostgreSQL 17 wrote; restore a backup of PostgreSQL 15 into a new Database instead",
    ],
  ],
  [
    "version lowered: a downgrade, named as one",
    db({ version: "15" }),
    db({ version: "17" }),
    [
      "spec.version: cannot go down from 17 to 15: PostgreSQL 15 cannot read data PostgreSQL 17 wrote; restore a backup of PostgreSQL 15 into a new Database instead",
    ],
  ],
  ["version kept on update", db({ instances: 2 }), db(), []],
  [
    "a major the operator has no image for, and none named",
    db({ version: "16" }),
    undefined,
    [
      "spec.version: the operator has no PostgreSQL 16 image (it has images for 15, 17, 18): choose one of those, name a PostgreSQL 16 image with pgBackRest in spec.image",
    ],
    DEFAULT_CONFIG,
  ],
  [
    "a major the operator has no image for, one named in spec.image",
    db({ version: "16", image: "registry.example/postgres:16" }),
    undefined,
    [],
    DEFAULT_CONFIG,
  ],
  ["a major the operator has an image for", db({ version: "15" }), undefined, [], DEFAULT_CONFIG],
  [
    "an image the operator's allowlist names (a registry path)",
    db({ version: "15", image: "registry.example.com/pg/postgres:15" }),
    undefined,
    [],
    { ...EVERY_IMAGE, allowedImages: ["registry.example.com/pg/"] },
  ],
  [
    "an image outside the operator's allowlist",
    db({ version: "15", image: "registry.example.com/pg-evil/postgres:15" }),
    undefined,
    [
      'spec.image: "registry.example.com/pg-evil/postgres:15" is not among the images this operator allows (registry.example.com/pg/, localhost/pgkeeper/postgres); omit spec.image for the default',
    ],
    { ...EVERY_IMAGE, allowedImages: ["registry.example.com/pg/", "localhost/pgkeeper/postgres"] },
  ],
  [
    "an image outside the allowlist, admitted before it was set, kept",
    db({ version: "15", image: "docker.io/library/postgres:15", instances: 2 }),
    db({ version: "15", image: "docker.io/library/postgres:15" }),
    [],
    { ...EVERY_IMAGE, allowedImages: ["registry.example.com/pg/"] },
  ],

  // image
  ["image with registry port", db({ image: "localhost:5000/pg:16" }), undefined, []],
  ["image without tag", db({ image: "postgres" }), undefined, []],
  [
    "image of another major",
    db({ image: "docker.io/library/postgres:15.8-bookworm" }),
    undefined,
    [
      'spec.image: "docker.io/library/postgres:15.8-bookworm" is a PostgreSQL 15 image, but spec.version is 16',
    ],
  ],
  [
    "image changed to another major on update",
    db({ image: "postgres:17" }),
    db({ image: "postgres:16" }),
    ['spec.image: "postgres:17" is a PostgreSQL 17 image, but spec.version is 16'],
  ],
  [
    "image of another major admitted earlier, unchanged",
    db({ image: "postgres:17", instances: 3 }),
    db({ image: "postgres:17" }),
    [],
  ],
  ["image of the major, with a suffix", db({ image: "postgres:16-alpine" }), undefined, []],
  ["image tag naming no major", db({ image: "postgres:20241201" }), undefined, []],
  ["image by digest", db({ image: `postgres@sha256:${"a".repeat(64)}` }), undefined, []],
  ["image empty", db({ image: "" }), undefined, ["spec.image: must not be empty"]],
  [
    "image with whitespace",
    db({ image: "postgres 16" }),
    undefined,
    ['spec.image: "postgres 16" must not contain whitespace'],
  ],
  [
    "image uppercase repository",
    db({ image: "Postgres:16" }),
    undefined,
    ['spec.image: "Postgres:16" is not a valid image reference'],
  ],
  ["image empty tag", db({ image: "postgres:" }), undefined, ["spec.image:"]],
  ["image bad digest", db({ image: "postgres@sha256:xyz" }), undefined, ["spec.image:"]],

  // instances
  [
    "instances 0",
    db({ instances: 0 }),
    undefined,
    ["spec.instances: 0 is out of range; allowed 1..9"],
  ],
  ["instances 10", db({ instances: 10 }), undefined, ["spec.instances: 10 is out of range"]],
  ["instances 9", db({ instances: 9 }), undefined, []],

  // storage
  [
    "size not a quantity",
    db({ storage: { size: "ten" } }),
    undefined,
    ['spec.storage.size: "ten" is not a quantity'],
  ],
  [
    "size with exponent",
    db({ storage: { size: "1e10" } }),
    undefined,
    ['spec.storage.size: "1e10" is not a size'],
  ],
  [
    "size too small",
    db({ storage: { size: "100Mi" } }),
    undefined,
    ["spec.storage.size: 100Mi is too small; at least 256Mi"],
  ],
  ["size zero", db({ storage: { size: "0" } }), undefined, ["spec.storage.size: 0 is too small"]],
  ["size at the minimum", db({ storage: { size: "256Mi" } }), undefined, []],
  [
    "storage shrinks",
    db({ storage: { size: "5Gi" } }),
    db(),
    ["spec.storage.size: cannot shrink from 10Gi to 5Gi; storage can only grow"],
  ],
  ["storage grows", db({ storage: { size: "20Gi" } }), db(), []],
  ["storage same size, other unit", db({ storage: { size: "10240Mi" } }), db(), []],
  [
    "storage class changed",
    db({ storage: { size: "10Gi", storageClassName: "slow" } }),
    db({ storage: { size: "10Gi", storageClassName: "fast" } }),
    ['spec.storage.storageClassName: cannot change from "fast" to "slow"'],
  ],
  [
    "storage class added",
    db({ storage: { size: "10Gi", storageClassName: "fast" } }),
    db(),
    ['spec.storage.storageClassName: cannot change from (unset) to "fast"'],
  ],

  // resources
  [
    "cpu not a quantity",
    db({ resources: { limits: { cpu: "lots" } } }),
    undefined,
    ['spec.resources.limits.cpu: "lots" is not a quantity'],
  ],
  [
    "memory zero",
    db({ resources: { requests: { memory: "0" } } }),
    undefined,
    ["spec.resources.requests.memory: 0 must be greater than zero"],
  ],
  [
    "memory negative",
    db({ resources: { limits: { memory: "-1Gi" } } }),
    undefined,
    ["spec.resources.limits.memory: -1Gi must be greater than zero"],
  ],
  [
    "request above limit",
    db({ resources: { requests: { memory: "2Gi" }, limits: { memory: "1Gi" } } }),
    undefined,
    ["spec.resources.requests.memory: 2Gi exceeds the limit 1Gi; requests must not exceed limits"],
  ],
  [
    "cpu request above limit",
    db({ resources: { requests: { cpu: "1500m" }, limits: { cpu: 1 } } }),
    undefined,
    ["spec.resources.requests.cpu: 1500m exceeds the limit 1"],
  ],
  [
    "memory below PostgreSQL's minimum",
    db({ resources: { limits: { memory: "64Mi" } } }),
    undefined,
    [
      "spec.resources.limits.memory: 64Mi is too little for PostgreSQL; memory must be at least 128Mi",
    ],
  ],
  [
    "cpu below 10m",
    db({ resources: { requests: { cpu: "5m" } } }),
    undefined,
    ["spec.resources.requests.cpu: 5m is too little for PostgreSQL; cpu must be at least 10m"],
  ],
  [
    "requests equal limits",
    db({
      resources: {
        requests: { cpu: "10m", memory: "128Mi" },
        limits: { cpu: "0.01", memory: "128Mi" },
      },
    }),
    undefined,
    [],
  ],

  // postgresql.parameters
  [
    "operator-owned parameters",
    db(params({ port: "5433", shared_buffers: "1GB", wal_log_hints: "off" })),
    undefined,
    ["spec.postgresql.parameters: port, wal_log_hints are managed by pgkeeper and cannot be set"],
  ],
  [
    "operator-owned, other case",
    db(params({ Port: "5433" })),
    undefined,
    ["spec.postgresql.parameters: Port is managed by pgkeeper"],
  ],
  [
    "blocked parameters, each with why",
    db(params({ archive_library: "basic_archive", Fsync: "off", ssl_ciphers: "NULL" })),
    undefined,
    [
      "spec.postgresql.parameters[archive_library]: cannot be set: would send WAL somewhere other than the object store while archiving looks healthy",
      "spec.postgresql.parameters[Fsync]: cannot be set: an acknowledged write could be lost in a crash",
      "spec.postgresql.parameters[ssl_ciphers]: cannot be set: would lower the TLS floor",
    ],
  ],
  [
    "shared_preload_libraries naming a library outside the set",
    db(params({ shared_preload_libraries: "pg_stat_statements, evil" })),
    undefined,
    [
      "spec.postgresql.parameters[shared_preload_libraries]: may name only pg_stat_statements, auto_explain, pg_prewarm; not evil",
    ],
  ],
  [
    "extension parameters",
    db(
      params({
        shared_preload_libraries: "pg_stat_statements,auto_explain",
        "auto_explain.log_min_duration": "1s",
      }),
    ),
    undefined,
    [],
  ],
  [
    "parameter name with a space",
    db(params({ "work mem": "4MB" })),
    undefined,
    ["spec.postgresql.parameters[work mem]: is not a valid parameter name"],
  ],
  [
    "parameter name starting with a digit",
    db(params({ "1abc": "x" })),
    undefined,
    ["spec.postgresql.parameters[1abc]: is not a valid parameter name"],
  ],
  [
    "parameter name with an empty part",
    db(params({ "ext..x": "1" })),
    undefined,
    ["spec.postgresql.parameters[ext..x]:"],
  ],
  [
    "parameter set twice",
    db(params({ work_mem: "4MB", WORK_MEM: "8MB" })),
    undefined,
    ["spec.postgresql.parameters[WORK_MEM]: duplicates work_mem"],
  ],
  [
    "parameter value empty",
    db(params({ work_mem: " " })),
    undefined,
    ["spec.postgresql.parameters[work_mem]: must not be empty"],
  ],
  [
    "parameter value with a newline",
    db(params({ work_mem: "4MB\nport = 1" })),
    undefined,
    ["spec.postgresql.parameters[work_mem]: must be a single line"],
  ],
  [
    "parameter value too long",
    db(params({ search_path: "a".repeat(4097) })),
    undefined,
    ["spec.postgresql.parameters[search_path]: must be at most 4096 characters"],
  ],

  [
    "PostgreSQL 15 parameters that its server accepts",
    db({
      version: "15",
      ...params({
        shared_buffers: "1.5GB",
        work_mem: "4096",
        effective_cache_size: "0x100000",
        checkpoint_timeout: "15min",
        vacuum_cost_delay: "2.5ms",
        huge_pages: "true",
        DateStyle: "iso, mdy",
        log_min_duration_statement: "-1",
        "pg_stat_statements.max": "10000",
        wal_level: "logical",
      }),
    }),
    undefined,
    [],
  ],
  [
    "PostgreSQL 15 parameter typos, directives, read-only ones and JavaScript's names",
    db({
      version: "15",
      ...params({ shared_bufers: "1GB", include: "x.conf", block_size: "16384", __proto__x: "1" }),
    }),
    undefined,
    [
      "spec.postgresql.parameters[shared_bufers]: is not a PostgreSQL 15 parameter; did you mean shared_buffers?",
      "spec.postgresql.parameters[include]: is not a PostgreSQL 15 parameter",
      "spec.postgresql.parameters[block_size]: is read-only",
      "spec.postgresql.parameters[__proto__x]: is not a PostgreSQL 15 parameter",
    ],
  ],
  [
    "PostgreSQL 17 parameter values its server would refuse",
    db({
      version: "17",
      ...params({
        shared_buffers: "-1GB",
        work_mem: "lots",
        maintenance_work_mem: "64mb",
        max_connections: "10kB",
        jit: "maybe",
        huge_pages: "sometimes",
        full_page_writes: "off",
        wal_level: "minimal",
        summarize_wal: "on",
      }),
    }),
    undefined,
    [
      'spec.postgresql.parameters[shared_buffers]: "-1GB" is outside the valid range 16 .. 1073741823 (in units of 8kB)',
      'spec.postgresql.parameters[work_mem]: "lots" is not an integer with an optional unit',
      'spec.postgresql.parameters[maintenance_work_mem]: "64mb": invalid unit mb; valid units are B, kB, MB, GB, TB (case matters)',
      'spec.postgresql.parameters[max_connections]: "10kB": this parameter takes no unit',
      'spec.postgresql.parameters[jit]: "maybe" is not a boolean (on or off)',
      'spec.postgresql.parameters[huge_pages]: "sometimes" is not one of off, on, try',
      "spec.postgresql.parameters[full_page_writes]: cannot be off",
      "spec.postgresql.parameters[wal_level]: cannot be minimal: standbys could not stream and nothing could be archived; use replica (the default) or logical",
    ],
  ],
  [
    "a parameter of a later major on an earlier one",
    db({ version: "15", ...params({ summarize_wal: "on" }) }),
    undefined,
    ["spec.postgresql.parameters[summarize_wal]: is not a PostgreSQL 15 parameter"],
  ],
  [
    "parameters an earlier major had, named with their successors",
    db({
      version: "17",
      ...params({ force_parallel_mode: "on", old_snapshot_threshold: "10min" }),
    }),
    undefined,
    [
      "spec.postgresql.parameters[force_parallel_mode]: is not a PostgreSQL 17 parameter (PostgreSQL 15 has it, 17 does not: use debug_parallel_query)",
      "spec.postgresql.parameters[old_snapshot_threshold]: is not a PostgreSQL 17 parameter (PostgreSQL 16 has it, 17 does not; it has no successor)",
    ],
  ],

  // postgresql.synchronous
  [
    "unknown synchronous mode",
    db({ postgresql: { synchronous: { mode: "sync", number: 1 } }, ...three }),
    undefined,
    ['spec.postgresql.synchronous.mode: "sync" is not a mode; allowed: off, quorum'],
  ],
  [
    "quorum without number",
    db({ ...quorum(), ...three }),
    undefined,
    ["spec.postgresql.synchronous.number: is required when mode is quorum"],
  ],
  [
    "number with mode off",
    db({ postgresql: { synchronous: { mode: "off", number: 1 } }, ...three }),
    undefined,
    ["spec.postgresql.synchronous.number: is only allowed with mode quorum"],
  ],
  [
    "number without mode",
    db({ postgresql: { synchronous: { number: 1 } }, ...three }),
    undefined,
    ["spec.postgresql.synchronous.number: is only allowed with mode quorum"],
  ],
  [
    "quorum with one instance",
    db(quorum(1)),
    undefined,
    ["spec.postgresql.synchronous.mode: quorum needs at least 2 instances"],
  ],
  [
    "number 0",
    db({ ...quorum(0), ...three }),
    undefined,
    ["spec.postgresql.synchronous.number: 0 must be at least 1"],
  ],
  [
    "number not below instances",
    db({ ...quorum(3), ...three }),
    undefined,
    ["spec.postgresql.synchronous.number: 3 must be less than spec.instances (3)"],
  ],
  [
    "scale-down below number+1",
    db({ ...quorum(2), instances: 2 }),
    db({ ...quorum(2), ...three }),
    ["spec.instances: cannot scale down to 2 while spec.postgresql.synchronous.number is 2"],
  ],
  ["quorum of 1 with 2 instances", db({ ...quorum(1), instances: 2 }), undefined, []],
  [
    "scale-down keeping a quorum",
    db({ ...quorum(1), instances: 2 }),
    db({ ...quorum(1), ...three }),
    [],
  ],
  ["mode off", db({ postgresql: { synchronous: { mode: "off" } } }), undefined, []],

  // failover
  [
    "failover delay too long",
    db({ failover: { delaySeconds: 3601 } }),
    undefined,
    ["spec.failover.delaySeconds: 3601 is out of range; allowed 0..3600"],
  ],
  [
    "failover delay negative",
    db({ failover: { delaySeconds: -1 } }),
    undefined,
    ["spec.failover.delaySeconds: -1 is out of range"],
  ],
  ["failover delay 0", db({ failover: { enabled: true, delaySeconds: 0 } }), undefined, []],

  // readOnly
  ["read lag limit", db({ readOnly: { maxLag: "16Mi" } }), undefined, []],
  [
    "read lag limit that is no size",
    db({ readOnly: { maxLag: "lots" } }),
    undefined,
    ["spec.readOnly.maxLag:"],
  ],

  // backup
  ["backup with macro", db(stored({ schedule: "@daily" })), undefined, []],
  [
    "backup schedule with 6 fields",
    db(stored({ schedule: "0 0 3 * * *" })),
    undefined,
    ["spec.backup.schedule: expected 5 fields"],
  ],
  [
    "backup schedule minute 60",
    db(stored({ schedule: "60 * * * *" })),
    undefined,
    ["spec.backup.schedule: 60 is out of range for minute (0-59)"],
  ],
  [
    "backup schedule without an object store",
    db(backup({ schedule: "@daily" })),
    undefined,
    [
      "spec.backup.schedule: needs spec.backup.objectStore when it is set: the backups need somewhere to go",
    ],
  ],
  [
    "backup retention and retentionDays without an object store",
    db(backup({ retention: 3, retentionDays: 30 })),
    undefined,
    [
      "spec.backup.retention: needs spec.backup.objectStore when it is set: it counts the backups kept there",
      "spec.backup.retentionDays: needs spec.backup.objectStore when it is set: it ages the backups kept there",
    ],
  ],
  [
    "an earlier version's backup section without a store, unchanged on update: ratcheted",
    db({ ...backup({ schedule: "@daily", retention: 7, volume: { size: "1Gi" } }), instances: 3 }),
    db(backup({ schedule: "@daily", retention: 7, volume: { size: "1Gi" } })),
    [],
  ],
  [
    "archive timeout with an object store",
    db(
      backup({
        objectStore: { endpoint: "s3.example", bucket: "pg", credentials: { secretName: "s3" } },
        archiveTimeoutSeconds: 30,
      }),
    ),
    undefined,
    [],
  ],
  [
    "archive timeout without an object store",
    db(backup({ archiveTimeoutSeconds: 30 })),
    undefined,
    [
      "spec.backup.archiveTimeoutSeconds: needs spec.backup.objectStore when it is set: nothing is archived",
    ],
  ],
  [
    "backup retention 0",
    db(stored({ retention: 0 })),
    undefined,
    ["spec.backup.retention: 0 is out of range; allowed 1..365"],
  ],
  [
    "backup retention 366",
    db(stored({ retention: 366 })),
    undefined,
    ["spec.backup.retention: 366 is out of range"],
  ],
  [
    "backup retentionDays 0",
    db(stored({ retentionDays: 0 })),
    undefined,
    ["spec.backup.retentionDays: 0 is out of range; allowed 1..3650 days"],
  ],
  [
    "backup retentionDays 3651",
    db(stored({ retentionDays: 3651 })),
    undefined,
    ["spec.backup.retentionDays: 3651 is out of range"],
  ],
  [
    "backup volume (removed)",
    db(stored({ volume: { size: "1Gi" } })),
    undefined,
    [
      "spec.backup.volume: is removed: base backups go to backup.objectStore, where they outlive the Database",
    ],
  ],
  [
    "backup volume unchanged on an earlier version's Database",
    db({ ...stored({ volume: { size: "1Gi" } }), instances: 3 }),
    db(stored({ volume: { size: "1Gi" } })),
    [],
  ],
  [
    "backup volume grown on an earlier version's Database",
    db(stored({ volume: { size: "2Gi" } })),
    db(stored({ volume: { size: "1Gi" } })),
    ["spec.backup.volume: is removed"],
  ],

  // bootstrap
  [
    "restore from another Database (replaced by recovery: it would start empty)",
    db(restoreFrom("orders-old")),
    undefined,
    ["spec.bootstrap.restore: is replaced by spec.bootstrap.recovery", "nothing was restored"],
  ],
  [
    "restore from itself",
    db(restoreFrom("orders")),
    undefined,
    ["spec.bootstrap.restore: is replaced by spec.bootstrap.recovery"],
  ],
  ["recovery to the end of the archive", db(recoverFrom()), undefined, []],
  [
    "recovery to a time, from a backup set",
    db(
      recoverFrom({ time: "2026-12-02T10:00:00.123456+01:00" }, { backupSet: "20261202-030000F" }),
    ),
    undefined,
    [],
  ],
  ["recovery to an LSN", db(recoverFrom({ lsn: "0/3000060" })), undefined, []],
  ["recovery to a restore point", db(recoverFrom({ name: "before migration" })), undefined, []],
  [
    "recovery with two targets",
    db(recoverFrom({ xid: 1234, immediate: true })),
    undefined,
    [
      "spec.bootstrap.recovery.target: takes exactly one of time, lsn, xid, name, immediate; got xid and immediate",
    ],
  ],
  [
    "recovery with an empty target",
    db(recoverFrom({})),
    undefined,
    ["spec.bootstrap.recovery.target: takes exactly one of", "got none"],
  ],
  [
    "recovery to a time without a zone",
    db(recoverFrom({ time: "2026-12-02 10:00:00" })),
    undefined,
    ['spec.bootstrap.recovery.target.time: "2026-12-02 10:00:00" is not an RFC 3339 time'],
  ],
  [
    "recovery to a malformed LSN",
    db(recoverFrom({ lsn: "3000060" })),
    undefined,
    ['spec.bootstrap.recovery.target.lsn: "3000060" is not a WAL position'],
  ],
  [
    "recovery with immediate false",
    db(recoverFrom({ immediate: false })),
    undefined,
    ["spec.bootstrap.recovery.target.immediate: can only be true"],
  ],
  [
    "recovery from a path that climbs out of the prefix",
    db(recoverFrom(undefined, { repositoryPath: "/backups/../other/x" })),
    undefined,
    [
      'spec.bootstrap.recovery.source.repositoryPath: "/backups/../other/x" is not a repository path',
    ],
  ],
  [
    "recovery with a store prefix (the repository path is already whole)",
    db(recoverFrom(undefined, { storePath: "/x", repositoryPath: "/x/prod/orders/1b2c" })),
    undefined,
    [
      "spec.bootstrap.recovery.source.objectStore.path: does not apply: repositoryPath is the repository's full path",
    ],
  ],
  [
    "recovery without a source store",
    db({ bootstrap: { recovery: { source: { repositoryPath: "/a/b" } } } }),
    undefined,
    ["spec.bootstrap.recovery.source.objectStore: is required"],
  ],
  [
    "restore without source",
    db({ bootstrap: { restore: {} } }),
    undefined,
    ["spec.bootstrap.restore.source: is required"],
  ],
  [
    "bootstrap added",
    db({ ...restoreFrom("a"), instances: 2 }),
    db(),
    ["spec.bootstrap: cannot be added after creation"],
  ],
  [
    "bootstrap removed",
    db({ instances: 2 }),
    db(restoreFrom("a")),
    ["spec.bootstrap: cannot be removed after creation"],
  ],
  [
    "bootstrap changed",
    db(restoreFrom("b")),
    db(restoreFrom("a")),
    ["spec.bootstrap: cannot be changed after creation"],
  ],
  ["bootstrap kept on update", db({ ...restoreFrom("a"), instances: 2 }), db(restoreFrom("a")), []],
  ["empty bootstrap counts as absent", db({ bootstrap: {}, instances: 2 }), db(), []],

  // scheduling.topologySpread
  [
    "topology spread over zones, required, and over racks",
    db(
      scheduling({
        topologySpread: [
          {
            topologyKey: "topology.kubernetes.io/zone",
            whenUnsatisfiable: "DoNotSchedule",
            minDomains: 3,
          },
          { topologyKey: "example.com/rack", maxSkew: 2 },
        ],
      }),
    ),
    undefined,
    [],
  ],
  [
    "topology spread: a bad key, a skew of 0, minDomains without DoNotSchedule, a key twice",
    db(
      scheduling({
        topologySpread: [
          { topologyKey: "my zone" },
          { topologyKey: "zone", maxSkew: 0, minDomains: 2 },
          { topologyKey: "zone", whenUnsatisfiable: "Never" },
        ],
      }),
    ),
    undefined,
    [
      "spec.scheduling.topologySpread[0].topologyKey: is not a valid label key",
      "spec.scheduling.topologySpread[1].maxSkew: must be between 1 and 9, got 0",
      "spec.scheduling.topologySpread[1].minDomains: minDomains needs whenUnsatisfiable: DoNotSchedule",
      'spec.scheduling.topologySpread[2].whenUnsatisfiable: "Never" is not allowed; use one of ScheduleAnyway, DoNotSchedule',
      'spec.scheduling.topologySpread[2].topologyKey: "zone" is named twice',
    ],
  ],

  // monitoring
  [
    "metrics with the user's queries",
    db({ monitoring: { customQueries: [{ name: "app-queries", key: "queries.yaml" }] } }),
    undefined,
    [],
  ],
  [
    "metrics queries: a bad ConfigMap name, a bad key, a pair twice",
    db({
      monitoring: {
        customQueries: [
          { name: "App", key: "q.yaml" },
          { name: "app", key: "../q" },
          { name: "app", key: "q.yaml" },
          { name: "app", key: "q.yaml" },
        ],
      },
    }),
    undefined,
    [
      'spec.monitoring.customQueries[0].name: "App" is not a ConfigMap name',
      'spec.monitoring.customQueries[1].key: "../q" is not a ConfigMap key',
      "spec.monitoring.customQueries[3]: app/q.yaml is named twice",
    ],
  ],

  // scheduling
  [
    "unknown anti-affinity",
    db(scheduling({ antiAffinity: "always" })),
    undefined,
    ['spec.scheduling.antiAffinity: "always" is not allowed; use one of preferred, required, none'],
  ],
  [
    "node selector key invalid",
    db(scheduling({ nodeSelector: { "bad key": "x" } })),
    undefined,
    ["spec.scheduling.nodeSelector[bad key]: is not a valid label key"],
  ],
  [
    "node selector value too long",
    db(scheduling({ nodeSelector: { disk: "x".repeat(64) } })),
    undefined,
    ["spec.scheduling.nodeSelector[disk]:"],
  ],
  [
    "toleration operator unknown",
    db(scheduling({ tolerations: [{ key: "a", operator: "Maybe" }] })),
    undefined,
    ['spec.scheduling.tolerations[0].operator: "Maybe" is not allowed'],
  ],
  [
    "toleration Exists with a value",
    db(scheduling({ tolerations: [{ key: "a", operator: "Exists", value: "x" }] })),
    undefined,
    ["spec.scheduling.tolerations[0].value: must be empty when operator is Exists"],
  ],
  [
    "toleration effect unknown",
    db(scheduling({ tolerations: [{ key: "a", effect: "Never" }] })),
    undefined,
    ['spec.scheduling.tolerations[0].effect: "Never" is not allowed'],
  ],
  [
    "toleration field types",
    db(scheduling({ tolerations: [{ key: 1, tolerationSeconds: "5" }] })),
    undefined,
    [
      "spec.scheduling.tolerations[0].key: must be a string",
      "spec.scheduling.tolerations[0].tolerationSeconds: must be an integer",
    ],
  ],

  [
    "storage class name not a DNS subdomain",
    db({ storage: { size: "10Gi", storageClassName: "Fast_SSD" } }),
    undefined,
    ['spec.storage.storageClassName: "Fast_SSD" is not a StorageClass name'],
  ],
  [
    "object store port out of range, bucket with adjacent periods",
    db(stored({ objectStore: { ...STORE, endpoint: "s3.example:99999", bucket: "pg..x" } })),
    undefined,
    [
      'spec.backup.objectStore.endpoint: "s3.example:99999" port 99999 is out of range',
      'spec.backup.objectStore.bucket: "pg..x" must not have adjacent periods',
    ],
  ],
  [
    "object store endpoint: an IPv4 address out of range, a numeric last label",
    db(stored({ objectStore: { ...STORE, endpoint: "10.0.0.999:9000" } })),
    undefined,
    ['spec.backup.objectStore.endpoint: "10.0.0.999:9000" is no IPv4 address'],
  ],
  [
    "object store endpoint: a host name ending in digits",
    db(stored({ objectStore: { ...STORE, endpoint: "s3.internal.42" } })),
    undefined,
    ['spec.backup.objectStore.endpoint: "s3.internal.42" is no IPv4 address'],
  ],
  [
    "object store path with a .. segment",
    db(stored({ objectStore: { ...STORE, path: "/a/../b" } })),
    undefined,
    ['spec.backup.objectStore.path: "/a/../b" must not contain . or .. segments'],
  ],
  [
    "node affinity with an unknown operator and In without values",
    db(
      scheduling({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: "zone", operator: "Maybe" },
                    { key: "disk", operator: "In", values: [] },
                  ],
                },
              ],
            },
          },
        },
      }),
    ),
    undefined,
    [
      'nodeSelectorTerms[0].matchExpressions[0].operator: "Maybe" is not allowed',
      "nodeSelectorTerms[0].matchExpressions[1].values: must not be empty with operator In",
    ],
  ],
  [
    "pod anti-affinity with an empty topology key and a weight of 0",
    db(
      scheduling({
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 0, podAffinityTerm: { topologyKey: "", labelSelector: {} } },
            ],
          },
        },
      }),
    ),
    undefined,
    [
      "preferredDuringSchedulingIgnoredDuringExecution[0].weight: 0 is out of range; allowed 1..100",
      "preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: must not be empty",
    ],
  ],
  [
    "network clients: selectors, an IPv6 block with an except inside it",
    db({
      networkPolicy: {
        enabled: true,
        clients: [
          { namespaceSelector: { matchLabels: { team: "a" } }, podSelector: {} },
          { ipBlock: { cidr: "fd00::/8", except: ["fd00:1::/32"] } },
          { ipBlock: { cidr: "10.0.0.0/8" } },
        ],
      },
    }),
    undefined,
    [],
  ],
  [
    "network clients: a peer with nothing, one with both, a bad CIDR, an except outside",
    db({
      networkPolicy: {
        enabled: true,
        clients: [
          {},
          { ipBlock: { cidr: "10.0.0.0/8" }, podSelector: {} },
          { ipBlock: { cidr: "10.0.0.0/33" } },
          {
            ipBlock: { cidr: "10.0.0.0/8", except: ["11.0.0.0/16", "10.0.0.0/8", "010.1.0.0/16"] },
          },
          { podSelector: { matchExpressions: [{ key: "app", operator: "Is" }] } },
        ],
      },
    }),
    undefined,
    [
      "spec.networkPolicy.clients[0]: a client needs podSelector, namespaceSelector or ipBlock",
      "spec.networkPolicy.clients[1]: a client is either an ipBlock or selectors, not both",
      'spec.networkPolicy.clients[2].ipBlock.cidr: "10.0.0.0/33" is not a CIDR',
      'spec.networkPolicy.clients[3].ipBlock.except[0]: "11.0.0.0/16" must be a CIDR strictly inside 10.0.0.0/8',
      'spec.networkPolicy.clients[3].ipBlock.except[1]: "10.0.0.0/8" must be a CIDR strictly inside',
      'spec.networkPolicy.clients[3].ipBlock.except[2]: "010.1.0.0/16" must be a CIDR strictly inside',
      'spec.networkPolicy.clients[4].podSelector.matchExpressions[0].operator: "Is" is not allowed',
    ],
  ],
  [
    "network clients: selector values that are no label values (a NUL byte, issue 28)",
    db({
      networkPolicy: {
        enabled: true,
        clients: [
          {
            namespaceSelector: {
              matchExpressions: [{ key: "team", operator: "In", values: ["a", "b\u0000c"] }],
            },
          },
          {
            podSelector: {
              matchExpressions: [{ key: "app", operator: "NotIn", values: ["-leading-dash"] }],
            },
          },
        ],
      },
    }),
    undefined,
    [
      String.raw`spec.networkPolicy.clients[0].namespaceSelector.matchExpressions[0].values[1]: "b\u0000c" is not a valid label value`,
      'spec.networkPolicy.clients[1].podSelector.matchExpressions[0].values[0]: "-leading-dash" is not a valid label value',
    ],
  ],
  [
    "a schedule no date matches (February 30th)",
    db(stored({ schedule: "0 3 30 2 *" })),
    undefined,
    ['spec.backup.schedule: "0 3 30 2 *" never fires: February has no day 30'],
  ],
  [
    "cpu with a binary suffix, memory beyond any machine",
    db({ resources: { requests: { cpu: "2Ki", memory: "1Ei" } } }),
    undefined,
    [
      "spec.resources.requests.cpu: 2Ki has a binary (byte) suffix",
      "spec.resources.requests.memory: 1Ei is too large; memory must be at most 16Ti",
    ],
  ],
  [
    "storage beyond any volume",
    db({ storage: { size: "900Ei" } }),
    undefined,
    ["spec.storage.size: 900Ei is too large; at most 64Ti"],
  ],

  // ratcheting and joining
  ["unchanged invalid spec on update", db({ instances: 20 }), db({ instances: 20 }), []],
  [
    "malformed stored object skips transition rules",
    db({ storage: { size: "5Gi" } }),
    db({ storage: "10Gi" }),
    [],
  ],
  [
    "several denials",
    db({ instances: 0, storage: { size: "1Mi" } }),
    undefined,
    [
      "spec.instances: 0 is out of range; allowed 1..9 (one primary plus up to 8 replicas); spec.storage.size: 1Mi is too small",
    ],
  ],
];

describe("validateDatabase", () => {
  // A rest parameter: jest would pass a `done` callback to a fifth named one on four-element rows.
  it.each(CASES)("%s", (...[, obj, old, expected, config]: Case) => {
    const message = formatDenials(validateDatabase(obj, old, config));
    if (expected.length === 0) expect(message).toBe("");
    for (const part of expected) expect(message).toContain(part);
  });

  it("has at least 40 cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it("has a passing and a failing case for every rule", () => {
    const seen = new Map<string, { passed: boolean; failed: boolean }>();
    const spies = RULES.map(rule => {
      const original = rule.check;
      return jest.spyOn(rule, "check").mockImplementation(ctx => {
        const denials = original(ctx);
        const entry = seen.get(rule.name) ?? { passed: false, failed: false };
        if (denials.length === 0) entry.passed = true;
        else entry.failed = true;
        seen.set(rule.name, entry);
        return denials;
      });
    });
    try {
      for (const [, obj, old, , config] of CASES) validateDatabase(obj, old, config);
    } finally {
      spies.forEach(spy => spy.mockRestore());
    }
    const incomplete = RULES.map(r => r.name).filter(
      name => !(seen.get(name)?.passed && seen.get(name)?.failed),
    );
    expect(incomplete).toEqual([]);
  });

  it("turns a throwing rule into a denial naming the rule", () => {
    const spy = jest.spyOn(storageSizeRule, "check").mockImplementation(() => {
      throw new Error("boom");
    });
    try {
      const message = formatDenials(validateDatabase(db()));
      expect(message).toBe(
        'spec: validation rule "storage-size" failed unexpectedly (boom); please report this pgkeeper bug',
      );
    } finally {
      spy.mockRestore();
    }
  });

  it("reports plain-object throws readably", () => {
    const spy = jest.spyOn(storageSizeRule, "check").mockImplementation(() => {
      throw { status: 500 };
    });
    try {
      expect(formatDenials(validateDatabase(db()))).toContain("(HTTP 500)");
    } finally {
      spy.mockRestore();
    }
  });

  it("names rules uniquely", () => {
    const names = RULES.map(r => r.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each([undefined, 0, "", [], true, { spec: null }, { spec: [] }, { metadata: null, spec: {} }])(
    "never throws on %p",
    obj => {
      expect(() => validateDatabase(obj)).not.toThrow();
      expect(validateDatabase(obj).length).toBeGreaterThan(0);
    },
  );
});
