/**
 * The Database API (pgkeeper.dev/v1alpha1), written once. The CRD YAML in deploy/crd.yaml is
 * generated from this file (`npm run crd:generate`) and a unit test fails when they drift.
 *
 * Defaults are not in the schema: the Mutate webhook fills them (see admission/defaults.ts) and
 * reconcile reads the spec through the same `withDefaults`, so a Database created while the
 * webhook was down still converges. CEL rules below must therefore cope with absent fields.
 */
import CORE_V1 from "./core-v1-schemas.json";
import {
  array,
  boolean,
  CelRule,
  coreType,
  Infer,
  integer,
  object,
  quantity,
  string,
  stringEnum,
  stringMap,
} from "./schema";

export const SUPPORTED_VERSIONS = ["14", "15", "16", "17", "18"] as const;

/** status.upgrade.phase, in the order an upgrade goes; the last three end it (api/upgrade-phases.ts). */
export const UPGRADE_PHASES = [
  "Waiting",
  "Checking",
  "Stopping",
  "Upgrading",
  "Starting",
  "Finishing",
  "Succeeded",
  "Failed",
  "Cancelled",
] as const;
export const MAX_INSTANCES = 9;
/** `<name>-superuser` must stay a valid 63-character DNS label; StatefulSet revision labels too. */
export const MAX_NAME_LENGTH = 50;

/**
 * Upper bounds of quantities (issue 14: absurd but well-formed values were admitted). The largest
 * block volume the big clouds offer is 64 TiB; the largest machines have under 1024 cores and
 * 16 TiB of memory; a replica a terabyte of WAL behind is no read replica.
 */
export const MAX_STORAGE_SIZE = "64Ti";
export const MAX_RESOURCES = { cpu: "1024", memory: "16Ti" } as const;
export const MAX_READ_ONLY_LAG = "1Ti";
/**
 * A parameter's value: generous for lists such as shared_preload_libraries, bounded so that a
 * Database's parameters stay small (the ConfigMap, every admission check of every value).
 */
export const MAX_PARAMETER_VALUE_LENGTH = 4096;

/**
 * Parameters the operator sets itself: letting users override them would break replication,
 * failover, probes or backups. Listed in the CRD (CEL) and in the webhook, which names them.
 */
export const OPERATOR_OWNED_PARAMETERS = [
  "listen_addresses",
  "port",
  "unix_socket_directories",
  "data_directory",
  "hba_file",
  "ident_file",
  "config_file",
  "hot_standby",
  "primary_conninfo",
  "primary_slot_name",
  "restore_command",
  "recovery_target",
  "recovery_target_lsn",
  "recovery_target_name",
  "recovery_target_time",
  "recovery_target_xid",
  "recovery_target_timeline",
  "promote_trigger_file",
  "archive_mode",
  "archive_command",
  "wal_log_hints",
  "max_wal_senders",
  "max_replication_slots",
  "synchronous_standby_names",
  "synchronous_commit",
  "cluster_name",
  "ssl",
  "ssl_cert_file",
  "ssl_key_file",
  "ssl_ca_file",
] as const;

/**
 * Parameters nobody may set, each with the reason (issue 28): they divert or drop WAL, run shell
 * commands or load code as the server, lower the TLS floor, weaken crash safety, or move files
 * and logs the image and the probes rely on. CloudNativePG's fixed and blocked lists
 * (pkg/postgres/configuration.go), those of its names pgkeeper does not set itself, plus what
 * that list leaves open. shared_preload_libraries is not here: it takes a fixed set of values
 * (SHARED_PRELOAD_LIBRARIES, ADR 0028).
 */
export const BLOCKED_PARAMETERS: Record<string, string> = {
  archive_library:
    "would send WAL somewhere other than the object store while archiving looks healthy",
  archive_cleanup_command: "runs a shell command as the server",
  recovery_end_command: "runs a shell command as the server",
  ssl_passphrase_command: "runs a shell command as the server",
  ssl_passphrase_command_supports_reload: "belongs to ssl_passphrase_command, which is blocked",
  session_preload_libraries: "loads code into every session",
  local_preload_libraries: "loads code into every session",
  dynamic_library_path: "lets code be loaded from anywhere on disk",
  jit_provider: "loads a library of its choosing",
  allow_system_table_mods: "lets the catalog be damaged",
  ignore_system_indexes: "makes the server ignore its catalog indexes",
  ignore_checksum_failure: "serves corrupt pages as good",
  ignore_invalid_pages: "lets recovery go on past corruption",
  zero_damaged_pages: "destroys damaged pages instead of reporting them",
  fsync: "an acknowledged write could be lost in a crash",
  data_sync_retry: "a failed write to disk would be retried as if it had succeeded",
  restart_after_crash: "a crashed primary must restart (or fail over), never stay down",
  recovery_target_action: "recovery is pgkeeper's to drive",
  recovery_target_inclusive: "recovery is pgkeeper's to drive",
  recovery_min_apply_delay: "a delayed replica is no failover target",
  synchronized_standby_slots: "replication slots are pgkeeper's to manage",
  ssl_min_protocol_version: "would lower the TLS floor",
  ssl_max_protocol_version: "would cap TLS below what clients may ask for",
  ssl_ciphers: "would lower the TLS floor",
  ssl_prefer_server_ciphers: "belongs to the TLS setup pgkeeper manages",
  ssl_crl_file: "names a file pgkeeper does not mount",
  ssl_crl_dir: "names a directory pgkeeper does not mount",
  ssl_dh_params_file: "names a file pgkeeper does not mount",
  krb_server_keyfile: "names a file pgkeeper does not mount",
  external_pid_file: "writes a file outside the data directory",
  unix_socket_group: "the local socket is pgkeeper's (the probes and kubectl exec use it)",
  unix_socket_permissions: "the local socket is pgkeeper's (the probes and kubectl exec use it)",
  logging_collector: "logs go to the container's output, where kubectl logs reads them",
  log_destination: "logs go to the container's output, where kubectl logs reads them",
  log_directory: "logs go to the container's output, where kubectl logs reads them",
  log_filename: "logs go to the container's output, where kubectl logs reads them",
  log_file_mode: "logs go to the container's output, where kubectl logs reads them",
  log_rotation_age: "logs go to the container's output, where kubectl logs reads them",
  log_rotation_size: "logs go to the container's output, where kubectl logs reads them",
  log_truncate_on_rotation: "logs go to the container's output, where kubectl logs reads them",
  syslog_facility: "logs go to the container's output, where kubectl logs reads them",
  syslog_ident: "logs go to the container's output, where kubectl logs reads them",
  syslog_sequence_numbers: "logs go to the container's output, where kubectl logs reads them",
  syslog_split_messages: "logs go to the container's output, where kubectl logs reads them",
  event_source: "logs go to the container's output, where kubectl logs reads them",
  bonjour: "the server is reached through its Services only",
  bonjour_name: "the server is reached through its Services only",
  stats_temp_directory: "names a directory pgkeeper does not mount",
};

/**
 * The libraries shared_preload_libraries may name: contrib modules every pgkeeper image has, none
 * of which runs shell or opens the server to the network (ADR 0028).
 */
export const SHARED_PRELOAD_LIBRARIES = [
  "pg_stat_statements",
  "auto_explain",
  "pg_prewarm",
] as const;

const QUANTITY_STRING_PATTERN = "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$";

/** CEL: a quantity field given as int-or-string, greater than zero and at most `max`. */
const quantityBounds = (name: string, max: string): CelRule[] => [
  {
    rule: "quantity(string(self)).isGreaterThan(quantity('0'))",
    message: `${name} must be greater than zero`,
  },
  {
    rule: `quantity(string(self)).compareTo(quantity('${max}')) <= 0`,
    message: `${name} must be at most ${max}`,
  },
];

const resourceList = object(
  {
    cpu: quantity(
      `CPU, in cores or millicores ("500m", "2"); 10m to ${MAX_RESOURCES.cpu} cores. A binary suffix ("2Ki") is refused: it counts bytes.`,
      {
        "x-kubernetes-validations": [
          {
            rule: "!string(self).matches('[KMGTPE]i$')",
            message:
              'cpu is counted in cores or millicores ("2", "500m"), not with a binary suffix',
          },
          ...quantityBounds("cpu", MAX_RESOURCES.cpu),
        ],
      },
    ),
    memory: quantity(
      `Memory, with a binary suffix ("512Mi", "4Gi"); 128Mi to ${MAX_RESOURCES.memory}.`,
      { "x-kubernetes-validations": quantityBounds("memory", MAX_RESOURCES.memory) },
    ),
  },
  "A set of compute resource amounts.",
);

const requestsWithinLimits = (resource: "cpu" | "memory"): CelRule => ({
  rule:
    `!has(self.requests) || !has(self.limits) || !has(self.requests.${resource}) || ` +
    `!has(self.limits.${resource}) || ` +
    `quantity(string(self.requests.${resource})).compareTo(quantity(string(self.limits.${resource}))) <= 0`,
  message: `resources.requests.${resource} must not exceed resources.limits.${resource}`,
  fieldPath: `.requests.${resource}`,
});

/** A TCP port, 1..65535. */
const PORT =
  "([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])";
/** host or host:port (a DNS name or an IPv4 address; no scheme: HTTPS always). */
const HOST_LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const ENDPOINT_PATTERN = `^${HOST_LABEL}([.]${HOST_LABEL})*(:${PORT})?$`;
/** S3 bucket naming rules (lower case, digits, dots, hyphens; 3..63). */
/** A label key: an optional DNS-subdomain prefix and a name of at most 63 characters. */
const LABEL_KEY_PATTERN =
  "^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";
const BUCKET_PATTERN = "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$";
/** A DNS-1123 subdomain: what every Secret's name is. */
const SECRET_NAME_PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/** A Secret's key (validation.IsConfigMapKey): never ".", "..", nor starting with "..". */
const SECRET_KEY_PATTERN = "^([-_a-zA-Z0-9]|[.][-_a-zA-Z0-9])[-._a-zA-Z0-9]*$";

const objectStore = object(
  {
    endpoint: string(
      "Host, or host:port, of the S3-compatible store (HTTPS only: pgBackRest's S3 client requires TLS). E.g. s3.eu-west-1.amazonaws.com.",
      { minLength: 1, maxLength: 253, pattern: ENDPOINT_PATTERN },
    ),
    bucket: string(
      "Bucket (S3 naming: 3-63 lowercase letters, digits, '.' and '-', not an IP address); it must exist.",
      {
        pattern: BUCKET_PATTERN,
        "x-kubernetes-validations": [
          {
            rule: "!self.matches('^[0-9]+[.][0-9]+[.][0-9]+[.][0-9]+$')",
            message: "objectStore.bucket must not look like an IP address",
          },
          {
            rule: "!self.contains('..') && !self.contains('.-') && !self.contains('-.')",
            message:
              "objectStore.bucket must not have adjacent periods or a period next to a hyphen",
          },
          {
            rule: "!self.startsWith('xn--') && !self.startsWith('sthree-') && !self.endsWith('-s3alias') && !self.endsWith('--ol-s3')",
            message:
              "objectStore.bucket must not use a prefix or suffix S3 reserves (xn--, sthree-, -s3alias, --ol-s3)",
          },
        ],
      },
    ),
    path: string(
      "Prefix in the bucket (at most 512 characters, no empty, . or .. segments). Each Database archives under <path>/<namespace>/<name>/<uid>, shown in status.backup.repositoryPath. Default /.",
      {
        maxLength: 512,
        pattern: "^/[A-Za-z0-9._/-]*$",
        "x-kubernetes-validations": [
          {
            rule: "!self.contains('//') && !self.contains('/../') && !self.endsWith('/..') && !self.contains('/./') && !self.endsWith('/.')",
            message: "objectStore.path must not contain empty (//), . or .. segments",
          },
        ],
      },
    ),
    region: string("Region of the signature scope. Default us-east-1.", {
      maxLength: 63,
      pattern: "^[a-z0-9-]+$",
    }),
    uriStyle: stringEnum(
      ["path", "host"],
      "path: https://endpoint/bucket/…; host: https://bucket.endpoint/…. Default path.",
    ),
    credentials: object(
      {
        secretName: string("Secret in the Database's namespace holding the keys.", {
          maxLength: 253,
          pattern: SECRET_NAME_PATTERN,
        }),
        accessKeyIdKey: string("Key of the access key ID in the Secret. Default accessKeyId.", {
          maxLength: 253,
          pattern: SECRET_KEY_PATTERN,
        }),
        secretAccessKeyKey: string(
          "Key of the secret access key in the Secret. Default secretAccessKey.",
          { maxLength: 253, pattern: SECRET_KEY_PATTERN },
        ),
      },
      "The store's credentials.",
      { required: ["secretName"] },
    ),
    ca: object(
      {
        secretName: string("Secret in the Database's namespace holding the CA bundle.", {
          maxLength: 253,
          pattern: SECRET_NAME_PATTERN,
        }),
        key: string("Key of the bundle (PEM) in the Secret. Default ca.crt.", {
          maxLength: 253,
          pattern: SECRET_KEY_PATTERN,
        }),
      },
      "CA bundle for the store's certificate, when no system CA signed it.",
      { required: ["secretName"] },
    ),
  },
  "S3-compatible object store receiving the WAL archive (and, later, base backups). Setting it turns continuous archiving on.",
  { required: ["endpoint", "bucket", "credentials"] },
);

/** What core/v1 checks on a pod's tolerations and its OpenAPI schema does not say. */
const TOLERATION_RULES: CelRule[] = [
  {
    rule: "!has(self.operator) || self.operator in ['Exists', 'Equal']",
    message: "toleration operator must be Exists or Equal",
    fieldPath: ".operator",
  },
  {
    rule: "!has(self.effect) || self.effect in ['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute']",
    message: "toleration effect must be NoSchedule, PreferNoSchedule or NoExecute",
    fieldPath: ".effect",
  },
  {
    rule: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
    message: "toleration operator must be Exists when key is empty",
    fieldPath: ".operator",
  },
  {
    rule: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
    message: "toleration value must be empty when operator is Exists",
    fieldPath: ".value",
  },
  {
    rule: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
    message: "tolerationSeconds is only allowed with effect NoExecute",
    fieldPath: ".tolerationSeconds",
  },
];

/**
 * An image reference whose tag (after the last slash) starts with `major`: alone, before a
 * separator ("16.3", "16-alpine") or a pre-release ("16beta1", "17rc1").
 */
const TAG_WITH_MAJOR = (major: string) =>
  `^[^@]*:${major}(([._-]|(alpha|beta|rc)[0-9])[^/:@]*)?(@.*)?$`;
/** Every major a tag can name: 10 and later, and the two-part majors before them (9.6, 8.4). */
const ANY_MAJOR = "(1[0-9]|[2-9][0-9]|[6-9][.][0-9])";

const cronPattern = "^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|(\\S+\\s+){4}\\S+)$";

/**
 * `bootstrap.restore` (a source Database's name) never worked and is replaced by
 * `bootstrap.recovery`, which names a repository that outlives its Database. The field stays in
 * the schema so it is refused by name, never pruned (a pruned field would be accepted and
 * ignored: the Database would start empty).
 */
export const RESTORE_REPLACED =
  "spec.bootstrap.restore is replaced by spec.bootstrap.recovery (a repository in an object store, which outlives its Database); nothing was restored";

/**
 * The backup volume (a PVC owned by the Database, so deleted with it, filled by a CronJob) is
 * removed. Like `bootstrap.restore`, the field stays in the schema so it is refused by name,
 * never pruned and silently ignored.
 */
export const BACKUP_VOLUME_REMOVED =
  "backup.volume is removed: base backups go to backup.objectStore, where they outlive the Database (an existing volume and its backups are kept until the Database is deleted)";

/** objectStore.path is a prefix for this Database's own repository; a source names its whole path. */
export const RECOVERY_PATH_IGNORED =
  "bootstrap.recovery.source.objectStore.path does not apply: repositoryPath is the repository's full path in the bucket";

/**
 * `<prefix>/<namespace>/<name>/<uid>`: prefix segments, a namespace (DNS-1123 label), a Database
 * name (DNS-1035 label of at most 50) and a uid (lower-case hex and dashes).
 */
const REPOSITORY_PATH_PATTERN =
  "^(/[A-Za-z0-9._-]+)*/[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/[a-z]([-a-z0-9]{0,48}[a-z0-9])?/[0-9a-f]([-0-9a-f]{0,34}[0-9a-f])?$";

/** pgBackRest backup labels: a full backup, or a differential/incremental one after it. */
const BACKUP_SET_PATTERN = "^[0-9]{8}-[0-9]{6}F(_[0-9]{8}-[0-9]{6}[DI])?$";
/** PostgreSQL's LSN syntax (hex/hex). */
const LSN_PATTERN = "^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$";

const recoveryTarget = object(
  {
    time: string(
      "Recover every transaction committed at or before this time (RFC 3339, e.g. 2026-12-02T10:00:00Z).",
      { format: "date-time" },
    ),
    lsn: string("Recover up to this WAL position (e.g. 0/3000060).", { pattern: LSN_PATTERN }),
    xid: integer("Recover up to this transaction ID (inclusive), 3 to 4294967295.", {
      minimum: 3,
      maximum: 4294967295,
    }),
    name: string("Recover up to the restore point created with pg_create_restore_point(name).", {
      minLength: 1,
      maxLength: 63,
      pattern: "^[^'\\\\\n]+$",
    }),
    immediate: boolean(
      "true: stop as soon as the base backup is consistent (no WAL replayed beyond it).",
    ),
  },
  "Where recovery stops. Exactly one field; no target: replay to the end of the archive.",
  {
    "x-kubernetes-validations": [
      {
        rule: "(has(self.time) ? 1 : 0) + (has(self.lsn) ? 1 : 0) + (has(self.xid) ? 1 : 0) + (has(self.name) ? 1 : 0) + (has(self.immediate) ? 1 : 0) == 1",
        message: "bootstrap.recovery.target takes exactly one of time, lsn, xid, name, immediate",
      },
      {
        rule: "!has(self.immediate) || self.immediate",
        message:
          "bootstrap.recovery.target.immediate can only be true (leave target out to replay the whole archive)",
        fieldPath: ".immediate",
      },
    ],
  },
);

const recovery = object(
  {
    source: object(
      {
        objectStore: objectStore,
        repositoryPath: string(
          "The source's repository in the bucket: its status.backup.repositoryPath (<path>/<namespace>/<name>/<uid>). The source Database need not exist any more; when it does (same uid), its version must be this one's. The store's Secrets must exist in this namespace.",
          {
            minLength: 2,
            maxLength: 1024,
            pattern: REPOSITORY_PATH_PATTERN,
            "x-kubernetes-validations": [
              {
                rule: "!self.contains('/../') && !self.contains('/./')",
                message:
                  "bootstrap.recovery.source.repositoryPath must not contain . or .. segments (climbing out of its prefix)",
              },
            ],
          },
        ),
      },
      "The pgBackRest repository to restore from.",
      {
        required: ["objectStore", "repositoryPath"],
        "x-kubernetes-validations": [
          {
            rule: "!has(self.objectStore.path)",
            message: RECOVERY_PATH_IGNORED,
            fieldPath: ".objectStore.path",
          },
        ],
      },
    ),
    backupSet: string(
      "The base backup to start from (a pgBackRest label, e.g. 20261202-030000F). Default: the newest one that ends before the target.",
      { maxLength: 64, pattern: BACKUP_SET_PATTERN },
    ),
    target: recoveryTarget,
  },
  "Create this Database from a base backup and the WAL archive of another one, up to a target. The first instance restores, replays and promotes on a new timeline, then archives to this Database's own repository; the others clone it. A source that cannot be read or a target recovery cannot reach fails the Database with the reason: it never starts empty.",
  { required: ["source"] },
);

/** core/v1's LabelSelector, as the apiserver publishes it inside a pod affinity term. */
const LABEL_SELECTOR =
  CORE_V1.Affinity.properties.podAffinity.properties.requiredDuringSchedulingIgnoredDuringExecution
    .items.properties.labelSelector;

export const MAX_NETWORK_CLIENTS = 32;

/** A networking/v1 NetworkPolicyPeer: who may connect (ADR 0018). */
const networkPeer = object(
  {
    podSelector: coreType<Record<string, unknown>>(
      LABEL_SELECTOR,
      "Pods (in this namespace, or in those namespaceSelector picks) allowed to connect; {} is every pod.",
    ),
    namespaceSelector: coreType<Record<string, unknown>>(
      LABEL_SELECTOR,
      "Namespaces whose pods are allowed to connect; {} is every namespace.",
    ),
    ipBlock: object(
      {
        cidr: string("Addresses allowed to connect, as a CIDR (10.0.0.0/8, fd00::/8).", {
          minLength: 1,
          maxLength: 64,
        }),
        except: array(
          string("A CIDR inside cidr.", { maxLength: 64 }),
          "Ranges of cidr not allowed.",
          { maxItems: 32 },
        ),
      },
      "Addresses outside the cluster's pods (a pod's address is not stable: use selectors).",
      { required: ["cidr"] },
    ),
  },
  "Clients allowed in, as a NetworkPolicy peer: podSelector and/or namespaceSelector, or ipBlock.",
  {
    "x-kubernetes-validations": [
      {
        rule: "has(self.podSelector) || has(self.namespaceSelector) || has(self.ipBlock)",
        message: "a client needs podSelector, namespaceSelector or ipBlock",
      },
      {
        rule: "!has(self.ipBlock) || !(has(self.podSelector) || has(self.namespaceSelector))",
        message: "a client is either an ipBlock or selectors, not both",
      },
    ],
  },
);

export const databaseSpecSchema = object(
  {
    version: stringEnum(
      SUPPORTED_VERSIONS,
      "PostgreSQL major version (14-18). Raising it alone starts a major upgrade with pg_upgrade (status.upgrade, ADR 0041); it never goes below the major the data is on (status.version).",
    ),
    image: string(
      "Container image for PostgreSQL (with pgBackRest, for backups). Defaults to pgkeeper's image for `version` under the operator's image repository (PGKEEPER_IMAGE_REPOSITORY; PGKEEPER_POSTGRES_IMAGE names another); a `version` the operator has no image for (PGKEEPER_POSTGRES_VERSIONS, by default those pgkeeper builds an image for: 15, 17 and 18) is refused unless this names one.",
      { minLength: 1, maxLength: 512 },
    ),
    imagePullSecrets: array(
      object(
        {
          name: string(
            "A Secret of type kubernetes.io/dockerconfigjson in the Database's namespace.",
            {
              maxLength: 253,
              pattern: SECRET_NAME_PATTERN,
            },
          ),
        },
        "A pull Secret, by name.",
        { required: ["name"] },
      ),
      "Secrets the kubelet pulls `image` with, for a registry that needs credentials: given to the instances' and backup Jobs' ServiceAccount. Defaults to the operator's (PGKEEPER_IMAGE_PULL_SECRETS).",
      { maxItems: 8, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] },
    ),
    instances: integer(
      `Number of PostgreSQL instances (1-${MAX_INSTANCES}): one primary and instances-1 streaming replicas. Default 1.`,
      { minimum: 1, maximum: MAX_INSTANCES },
    ),
    storage: object(
      {
        size: string(
          `Size of each instance's data volume ("10Gi"), 256Mi to ${MAX_STORAGE_SIZE}. Can grow, never shrink.`,
          {
            pattern: QUANTITY_STRING_PATTERN,
            "x-kubernetes-validations": [
              {
                rule: `quantity(self).compareTo(quantity('${MAX_STORAGE_SIZE}')) <= 0`,
                message: `storage.size must be at most ${MAX_STORAGE_SIZE}`,
              },
              {
                rule: "quantity(self).compareTo(quantity(oldSelf)) >= 0",
                message: "storage.size cannot shrink: PostgreSQL volumes can only grow",
              },
              {
                rule: "quantity(self).isGreaterThan(quantity('0'))",
                message: "storage.size must be greater than zero",
              },
            ],
          },
        ),
        storageClassName: string(
          "StorageClass for the data volumes (a DNS subdomain name, at most 253 characters); the cluster default when unset. Fixed after creation.",
          {
            maxLength: 253,
            pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
            "x-kubernetes-validations": [
              { rule: "self == oldSelf", message: "storage.storageClassName is immutable" },
            ],
          },
        ),
      },
      "Persistent storage of each instance.",
      { required: ["size"] },
    ),
    resources: object(
      {
        requests: resourceList,
        limits: resourceList,
      },
      "CPU and memory for the PostgreSQL container (requests are what the scheduler reserves).",
      { "x-kubernetes-validations": [requestsWithinLimits("cpu"), requestsWithinLimits("memory")] },
    ),
    scheduling: object(
      {
        nodeSelector: stringMap("Node labels an instance's node must have.", { maxProperties: 64 }),
        tolerations: array(
          coreType<Record<string, unknown>>(CORE_V1.Toleration, "A core/v1 Toleration.", {
            "x-kubernetes-validations": TOLERATION_RULES,
          }),
          "Tolerations of the instance pods (core/v1 Toleration).",
          { maxItems: 64 },
        ),
        affinity: coreType<Record<string, unknown>>(
          CORE_V1.Affinity,
          "Extra core/v1 Affinity for the instance pods, merged with the anti-affinity below.",
        ),
        antiAffinity: stringEnum(
          ["preferred", "required", "none"],
          "Spread instances over nodes: `preferred` (default) tries, `required` refuses to co-locate (needs one node per instance), `none` does not care.",
        ),
        topologySpread: array(
          object(
            {
              topologyKey: string(
                "The node label whose values are the domains, e.g. topology.kubernetes.io/zone.",
                { minLength: 1, maxLength: 317, pattern: LABEL_KEY_PATTERN },
              ),
              maxSkew: integer(
                "At most this many more of this Database's instances in one domain than in the emptiest. Default 1.",
                { minimum: 1, maximum: MAX_INSTANCES },
              ),
              whenUnsatisfiable: stringEnum(
                ["ScheduleAnyway", "DoNotSchedule"],
                "ScheduleAnyway (default) prefers the spread; DoNotSchedule leaves an instance pending rather than break it.",
              ),
              minDomains: integer(
                "With DoNotSchedule: count at least this many domains, so that instances wait for a missing zone rather than crowd the others.",
                { minimum: 1, maximum: MAX_INSTANCES },
              ),
            },
            "Spread the instances over the values of one node label (a core/v1 TopologySpreadConstraint, whose selector pgkeeper fills with this Database's instances).",
            {
              required: ["topologyKey"],
              "x-kubernetes-validations": [
                {
                  rule: "!has(self.minDomains) || (has(self.whenUnsatisfiable) && self.whenUnsatisfiable == 'DoNotSchedule')",
                  message: "minDomains needs whenUnsatisfiable: DoNotSchedule",
                  fieldPath: ".minDomains",
                },
              ],
            },
          ),
          "Topology spread constraints for the instance pods, beside (or instead of, with antiAffinity: none) the anti-affinity: spread over zones, racks or any node label.",
          {
            maxItems: 8,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["topologyKey"],
          },
        ),
      },
      "Where instance pods may run.",
    ),
    postgresql: object(
      {
        parameters: stringMap(
          "postgresql.conf parameters. Reloadable ones are applied live; restart-only ones show in status.pendingRestart and are rolled out one instance at a time. Parameters the operator owns are rejected.",
          {
            maxProperties: 200,
            "x-kubernetes-validations": [
              {
                // JavaScript objects lose this key (ramda's clone drops it): refused by name.
                rule: "!('__proto__' in self)",
                message: "__proto__ is not a PostgreSQL parameter",
              },
              {
                rule: `!self.exists(k, k in [${OPERATOR_OWNED_PARAMETERS.map(p => `'${p}'`).join(", ")}])`,
                message: `these parameters are managed by pgkeeper and cannot be set: ${OPERATOR_OWNED_PARAMETERS.join(", ")}`,
              },
              {
                rule: `!self.exists(k, k in [${Object.keys(BLOCKED_PARAMETERS)
                  .map(p => `'${p}'`)
                  .join(", ")}])`,
                message: `these parameters cannot be set (the webhook says why for each): ${Object.keys(BLOCKED_PARAMETERS).join(", ")}`,
              },
              {
                rule: "!('wal_level' in self) || self['wal_level'].lowerAscii() != 'minimal'",
                message:
                  "wal_level cannot be minimal: standbys could not stream and nothing could be archived; use replica (the default) or logical",
              },
            ],
          },
          { maxLength: MAX_PARAMETER_VALUE_LENGTH },
        ),
        synchronous: object(
          {
            mode: stringEnum(
              ["off", "quorum"],
              "`off` (default): asynchronous replication. `quorum`: a commit waits for `number` standbys (ANY n), and only synchronous standbys may be promoted, so no acknowledged write is lost on failover.",
            ),
            number: integer(
              "Standbys that must confirm each commit in quorum mode (1..instances-1).",
              {
                minimum: 1,
                maximum: MAX_INSTANCES - 1,
              },
            ),
          },
          "Synchronous replication.",
          {
            "x-kubernetes-validations": [
              {
                rule: "!has(self.mode) || self.mode != 'quorum' || has(self.number)",
                message: "synchronous.number is required when synchronous.mode is quorum",
                fieldPath: ".number",
              },
              {
                rule: "!has(self.number) || (has(self.mode) && self.mode == 'quorum')",
                message: "synchronous.number is only allowed with synchronous.mode quorum",
                fieldPath: ".number",
              },
            ],
          },
        ),
      },
      "PostgreSQL configuration.",
    ),
    failover: object(
      {
        enabled: boolean("Promote a replica when the primary fails. Default true."),
        delaySeconds: integer(
          "How long the primary must be unhealthy before failover starts, 0-3600 seconds. Default 0 (as soon as the failure is confirmed).",
          { minimum: 0, maximum: 3600 },
        ),
        promoteAfterFenceTimeout: boolean(
          "Promote the target even when the old primary's pod is still there 60 s after it was deleted (its node is unreachable, so nothing confirms postgres stopped). Clients and standbys that still reach the old primary could then write to two primaries. Default false: the failover waits, and a FenceTimeout Warning says how to confirm the node is down and force-delete the pod.",
        ),
      },
      "Automatic failover.",
    ),
    readOnly: object(
      {
        maxLag: string(
          `How far (WAL bytes, "64Mi", at most ${MAX_READ_ONLY_LAG}) a replica may be behind the primary and still serve reads through \`<name>-ro\`. A replica that is not streaming, is on another timeline or is further behind leaves \`-ro\` (it comes back once within half the limit) and the Database shows Degraded with the reason. Default 64Mi.`,
          {
            pattern: QUANTITY_STRING_PATTERN,
            "x-kubernetes-validations": [
              {
                rule: `quantity(self).compareTo(quantity('${MAX_READ_ONLY_LAG}')) <= 0`,
                message: `readOnly.maxLag must be at most ${MAX_READ_ONLY_LAG}`,
              },
            ],
          },
        ),
      },
      "Which replicas serve reads through `<name>-ro`.",
    ),
    backup: object(
      {
        objectStore,
        archiveTimeoutSeconds: integer(
          "archive_timeout, 1-3600 seconds: a segment is archived at least this often while anything is written, bounding what is lost without synchronous standbys. Default 60.",
          { minimum: 1, maximum: 3600 },
        ),
        schedule: string(
          "Cron schedule (5 fields, or @daily etc., UTC; a schedule no date matches, such as February 30th, is refused) of full base backups: a Backup object <name>-<yyyymmddhhmm> at each time (a time missed by more than an hour, operator down, is skipped). Needs objectStore.",
          {
            maxLength: 100,
            pattern: cronPattern,
          },
        ),
        retention: integer(
          "How many full base backups (1-365) to keep at least: after each backup pgBackRest expires older ones, and the WAL only they need. Default 7. Needs objectStore.",
          { minimum: 1, maximum: 365 },
        ),
        retentionDays: integer(
          "Keep also every full backup needed to restore to any point in this many past days (1-3650) (the newest full backup older than that, and all after it), even beyond retention. Needs objectStore.",
          { minimum: 1, maximum: 3650 },
        ),
        volume: object(
          {
            size: string("Size of the backup volume.", { pattern: QUANTITY_STRING_PATTERN }),
            storageClassName: string("StorageClass of the backup volume.", { maxLength: 253 }),
          },
          "Removed (backups go to objectStore, where they outlive the Database): refused.",
        ),
      },
      "Scheduled base backups.",
      {
        "x-kubernetes-validations": [
          {
            rule: "!has(self.schedule) || has(self.objectStore)",
            message:
              "backup.schedule needs backup.objectStore when it is set: the backups need somewhere to go",
            fieldPath: ".schedule",
          },
          {
            rule: "!has(self.retention) || has(self.objectStore)",
            message:
              "backup.retention needs backup.objectStore when it is set: it counts the backups kept there",
            fieldPath: ".retention",
          },
          {
            rule: "!has(self.retentionDays) || has(self.objectStore)",
            message:
              "backup.retentionDays needs backup.objectStore when it is set: it ages the backups kept there",
            fieldPath: ".retentionDays",
          },
          {
            rule: "!has(self.archiveTimeoutSeconds) || has(self.objectStore)",
            message:
              "backup.archiveTimeoutSeconds needs backup.objectStore when it is set: nothing is archived without it",
            fieldPath: ".archiveTimeoutSeconds",
          },
          { rule: "!has(self.volume)", message: BACKUP_VOLUME_REMOVED, fieldPath: ".volume" },
        ],
      },
    ),
    bootstrap: object(
      {
        restore: object(
          {
            source: string("Name of the Database (same namespace) whose backups to restore from.", {
              minLength: 1,
              maxLength: MAX_NAME_LENGTH,
            }),
            backup: string("Name of the backup to restore; the latest successful one when unset.", {
              maxLength: 253,
            }),
          },
          "Replaced by bootstrap.recovery: refused.",
          { required: ["source"] },
        ),
        recovery,
      },
      "How a new Database gets its data. Fixed after creation.",
      {
        "x-kubernetes-validations": [
          { rule: "self == oldSelf", message: "bootstrap is immutable after creation" },
          { rule: "!has(self.restore)", message: RESTORE_REPLACED, fieldPath: ".restore" },
        ],
      },
    ),
    tls: object(
      {
        allowPlaintext: boolean(
          "Also accept connections without TLS (still with a password) for applications: pgkeeper's own roles never, the superuser only with enableSuperuserAccess. Default false: every connection over the network, replication included, is TLS, and a plaintext one is refused.",
        ),
        serverSecretName: string(
          "A Secret of yours with the server certificate to serve instead of the one pgkeeper issues (cert-manager layout: tls.crt, tls.key, ca.crt). It must name <name>-rw, <name>-ro and *.<name>-hl in this namespace (short, .<namespace>, .<namespace>.svc and .svc.cluster.local) and be valid; clients verify against its ca.crt. Replication and pgkeeper's own client certificates still come from the Database's CA.",
          { minLength: 1, maxLength: 253, pattern: SECRET_NAME_PATTERN },
        ),
      },
      "TLS of client and replication connections (ADR 0017). pgkeeper runs a CA per Database (Secret <name>-ca) and serves a certificate it renews before expiry without restarting PostgreSQL; <name>-app carries ca.crt and an sslmode=verify-full uri.",
    ),
    enableSuperuserAccess: boolean(
      "Let the superuser (postgres) log in over the network with its password (over TLS). Default false: the superuser logs in over the network only with pgkeeper's own client certificate and password, for the operator; its password in <name>-superuser stays for break-glass use through the pod's local socket.",
    ),
    networkPolicy: object(
      {
        enabled: boolean(
          "Keep a NetworkPolicy <name> that lets in only this Database's instances and backup Jobs, pgkeeper's operator namespace, and spec.networkPolicy.clients. Set true on new Databases; false (or unset, as on Databases created before this field) removes it.",
        ),
        clients: array(
          networkPeer,
          "Who may connect to PostgreSQL (port 5432). Default: every pod in this namespace. [] lets in only the instances, backup Jobs and the operator.",
          { maxItems: MAX_NETWORK_CLIENTS },
        ),
      },
      "Ingress to the instance pods (ADR 0018). Enforced only where the cluster's network plugin enforces NetworkPolicy.",
    ),
    monitoring: object(
      {
        enabled: boolean(
          "PostgreSQL's metrics on port 9187 of every instance, over TLS with the instance's server certificate: a sidecar running the image's prometheus-postgres-exporter with pgkeeper's queries, logged in as pgkeeper_monitor (ADR 0043). Default true; false removes the sidecar (every instance restarts once).",
        ),
        customQueries: array(
          object(
            {
              name: string("A ConfigMap in the Database's namespace.", {
                maxLength: 253,
                pattern: SECRET_NAME_PATTERN,
              }),
              key: string("The key holding the queries.", {
                maxLength: 253,
                pattern: SECRET_KEY_PATTERN,
              }),
            },
            "ConfigMap key with queries in postgres_exporter's format (the one CloudNativePG reads): name: {query, metrics: [{column: {usage, description}}]}.",
            { required: ["name", "key"] },
          ),
          "Your queries, run beside pgkeeper's at every scrape as pgkeeper_monitor (pg_monitor). Read every pass; a missing or malformed one is left out whole, named in the CustomQueries condition, and the others still run.",
          {
            maxItems: 8,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "key"],
          },
        ),
      },
      "PostgreSQL metrics (ADR 0043).",
    ),
    paused: boolean("Stop reconciling this Database (status says so). Nothing is deleted."),
  },
  "Desired state of a PostgreSQL database cluster.",
  {
    required: ["version", "storage"],
    "x-kubernetes-validations": [
      {
        // The webhook's image rule (tagMajor) in CEL: a tag that starts with a major names this one.
        rule: `!has(self.image) || !self.image.matches('${TAG_WITH_MAJOR(ANY_MAJOR)}') || self.image.matches('${TAG_WITH_MAJOR("' + self.version + '")}')`,
        message: "spec.image's tag names another PostgreSQL major than spec.version",
        fieldPath: ".image",
      },
    ],
  },
);

const condition = object(
  {
    type: string(
      "Condition type (Ready, Reconciled, PrimaryAvailable, ReplicasStreaming, ContinuousArchiving, Recovered, BackupSucceeded).",
    ),
    status: stringEnum(["True", "False", "Unknown"], "Status of the condition."),
    reason: string("UpperCamelCase reason for the last transition."),
    message: string("Human-readable details."),
    lastTransitionTime: string("When the status last changed.", { format: "date-time" }),
    observedGeneration: integer("The generation the condition was computed from."),
  },
  "A standard metav1.Condition.",
  { required: ["type", "status", "reason", "lastTransitionTime"] },
);

const instanceStatus = object(
  {
    name: string("Pod name of the instance."),
    role: stringEnum(["primary", "replica", "unknown"], "Role of the instance."),
    ready: boolean("Whether the instance passes its readiness checks."),
    timeline: integer("PostgreSQL timeline."),
    lsn: string("Last WAL location written (primary) or received (replica)."),
    lagBytes: integer("Replication lag behind the primary, in bytes."),
    streaming: boolean("A replica receiving WAL from the primary."),
    synchronous: boolean("A standby the primary counts toward the synchronous quorum."),
    pendingRestart: array(
      string("Parameter name."),
      "Parameters waiting for a restart of this instance.",
    ),
    needsRestart: boolean(
      "The pod runs an older StatefulSet revision or has parameters pending restart.",
    ),
    servesReads: boolean(
      "A replica behind `<name>-ro`: streaming on the primary's timeline, within spec.readOnly.maxLag.",
    ),
    notServingReason: string("Why a replica does not serve reads."),
    image: string("The image the instance's PostgreSQL was started with (its pod's spec)."),
    imageID: string(
      "What the kubelet says runs: the image's digest. Two tags of one image share it.",
    ),
    startRefused: string(
      "While the instance's PostgreSQL is not running: why it last ended, in its entrypoint's words (an image of another major than spec.version, a data directory of another major).",
    ),
  },
  "Observed state of one instance.",
  { required: ["name", "role", "ready"] },
);

export const databaseStatusSchema = object(
  {
    phase: stringEnum(
      [
        "Pending",
        "Creating",
        "Ready",
        "Degraded",
        "FailingOver",
        "SwitchingOver",
        "RestartingPrimary",
        "Upgrading",
        "Failed",
        "Paused",
        "Deleting",
      ],
      "Human summary of the state; conditions carry the details.",
    ),
    observedGeneration: integer("The spec generation last reconciled."),
    conditions: array(condition, "Standard conditions.", {
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["type"],
    }),
    currentPrimary: string("Pod name of the current primary."),
    targetPrimary: string(
      "Pod name the operator is promoting; differs from currentPrimary during a failover or switchover.",
    ),
    instances: array(instanceStatus, "Observed instances."),
    readyInstances: integer("Number of ready instances."),
    initializedAt: string(
      "When a primary first accepted connections. From then on the Database holds data, and an instance that finds no data clones a primary: none ever initialises an empty database again.",
      { format: "date-time" },
    ),
    operation: object(
      {
        type: stringEnum(
          ["Failover", "Switchover", "Restart"],
          "What is being done. Restart: the primary restarts in place, before the replicas (a change lowers a limit standbys must match).",
        ),
        step: stringEnum(
          ["Fencing", "Promoting", "Restarting"],
          "Fencing: the old primary is being taken out of service (label off, pod stopped). Promoting: the target is being promoted. Restarting: the primary's pod was stopped and is awaited back.",
        ),
        from: string("The primary being replaced."),
        to: string("The instance being promoted."),
        reason: string("Why it started."),
        startedAt: string("When it started.", { format: "date-time" }),
        stepStartedAt: string("When the current step started.", { format: "date-time" }),
        fencedPodUid: string(
          "UID of the old primary's pod that was stopped (a new pod with another UID is no longer a threat).",
        ),
        requested: boolean("Started from the switchover annotation (removed when done)."),
      },
      "The failover or switchover in progress, recorded before each step so an operator restarted midway resumes it (and never promotes a different instance).",
      { required: ["type", "step", "from", "to", "startedAt"] },
    ),
    synchronousStandbys: array(
      string("Pod name."),
      "Standbys the primary last reported as synchronous (quorum mode): the only ones eligible for promotion.",
    ),
    restart: object(
      {
        request: string("The value of the pgkeeper.dev/restart annotation that asked for it."),
        requestedAt: string(
          "When pgkeeper took the request: the pod template carries it, so every instance restarts once, as a template change rolls (replicas first, then a switchover, then the old primary).",
          { format: "date-time" },
        ),
        phase: stringEnum(
          ["Restarting", "Done"],
          "Restarting: instances still run from before the request. Done: every instance restarted and is ready; the annotation is removed.",
        ),
        finishedAt: string("When the last instance was back.", { format: "date-time" }),
      },
      "The last rolling restart asked for with the pgkeeper.dev/restart annotation.",
      { required: ["request", "requestedAt", "phase"] },
    ),
    lastSwitchover: object(
      {
        time: string("When the switchover completed.", { format: "date-time" }),
        from: string("The demoted primary."),
        to: string("The promoted replica."),
        reason: string("Why it happened."),
        durationSeconds: integer("Seconds from start to a new writable primary."),
      },
      "The last switchover.",
    ),
    lastFailover: object(
      {
        time: string("When the failover completed.", { format: "date-time" }),
        from: string("The failed primary."),
        to: string("The promoted replica."),
        reason: string("Why it happened."),
        durationSeconds: integer("Seconds from detection to a new writable primary."),
      },
      "The last failover.",
    ),
    pendingRestart: array(
      string("Parameter name."),
      "Parameters changed that need a restart to take effect.",
    ),
    backup: object(
      {
        repositoryPath: string(
          "This Database's pgBackRest repository in spec.backup.objectStore's bucket (<path>/<namespace>/<name>/<uid>): what bootstrap.recovery.source.repositoryPath names to restore from it, even after this Database is deleted.",
        ),
      },
      "Where this Database's WAL archive is (with spec.backup.objectStore).",
    ),
    lastSuccessfulBackup: object(
      {
        name: string("The Backup object."),
        label: string("pgBackRest's label (bootstrap.recovery.backupSet)."),
        time: string("When the backup stopped.", { format: "date-time" }),
      },
      "The newest Completed Backup of this Database.",
    ),
    firstRecoverabilityPoint: string(
      "The earliest time a restore from the repository can reach: the end of its oldest backup, as the newest Completed Backup saw it.",
      { format: "date-time" },
    ),
    version: string(
      "The PostgreSQL major the data directory is on: spec.version, except while a major upgrade has not converted the data yet, or after one failed.",
    ),
    upgrade: object(
      {
        from: string("The major the data was on."),
        to: string("The major it is upgraded to (spec.version)."),
        fromImage: string("The image of the old major, which runs until the data is converted."),
        primary: string("The instance whose data directory is converted."),
        phase: stringEnum(
          UPGRADE_PHASES,
          "Waiting: for an operation or a backup to end. Checking: a Job beside the serving primary checks the upgrade (pg_upgrade --check, extensions, space, a rehearsal of the schema); a refusal fails the upgrade with nothing stopped. Stopping: every instance stops. Upgrading: the upgrade Job converts the primary's data (pg_upgrade --copy; the old data directory is kept). Starting: the primary on the new major, then the standbys, cloned from it. Finishing: a backup of the new major, then the old data directory is deleted. Failed: the data is on the old major, which runs (again); message says why (spec.version set back to status.version, then raised again, retries). Cancelled: spec.version was set back before the data was converted, or after a failure.",
        ),
        message: string("What the current phase waits for, or why the upgrade failed."),
        startedAt: string("When the upgrade started.", { format: "date-time" }),
        stoppedAt: string("When every instance had stopped.", { format: "date-time" }),
        servingAt: string("When the primary accepted writes again.", { format: "date-time" }),
        finishedAt: string("When it succeeded or failed.", { format: "date-time" }),
        downtimeSeconds: integer(
          "Seconds without a writable primary: from the stop of the instances to the new primary's first write.",
        ),
        backup: string("The Backup of the new major taken before the old data is deleted."),
      },
      "The last major upgrade (spec.version raised), recorded before each step so a restarted operator resumes it.",
      { required: ["from", "to", "phase"] },
    ),
    retry: object(
      {
        attempts: integer("Consecutive failed reconciles."),
        lastError: string("The last reconcile error."),
        nextRetryTime: string("When the next retry is due.", { format: "date-time" }),
      },
      "Retry state after reconcile failures; absent when the last reconcile succeeded.",
    ),
  },
  "Observed state, written by the operator.",
);

/** Rules on the whole object (they may read metadata.name). */
export const databaseRootRules: CelRule[] = [
  {
    // At the root, where the stored status is seen: the one fall admitted is back to the major
    // the data is on (an upgrade that did not convert it). Checked when the operator is down too.
    rule: "int(self.spec.version) >= int(oldSelf.spec.version) || (has(self.status) && has(self.status.version) && self.spec.version == self.status.version)",
    message:
      "spec.version cannot go down: PostgreSQL cannot read data a newer major wrote; restore a backup of the older major into a new Database instead",
    fieldPath: ".spec.version",
  },
  {
    rule: `size(self.metadata.name) <= ${MAX_NAME_LENGTH}`,
    message: `metadata.name must be at most ${MAX_NAME_LENGTH} characters (child names add suffixes)`,
  },
  {
    rule: "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    message:
      "metadata.name must start with a letter and contain only lowercase letters, digits and '-' (it names Services)",
  },
  {
    rule: "!has(self.spec.postgresql) || !has(self.spec.postgresql.synchronous) || !has(self.spec.postgresql.synchronous.number) || (has(self.spec.instances) && self.spec.postgresql.synchronous.number < self.spec.instances)",
    message:
      "spec.postgresql.synchronous.number must be less than spec.instances (a primary needs that many standbys)",
    fieldPath: ".spec.postgresql.synchronous.number",
  },
];

export type DatabaseSpec = Infer<typeof databaseSpecSchema>;
export type ObjectStoreSpec = Infer<typeof objectStore>;
export type DatabaseStatus = Infer<typeof databaseStatusSchema>;
export type Condition = Infer<typeof condition>;
export type InstanceStatus = Infer<typeof instanceStatus>;
export type PostgresVersion = (typeof SUPPORTED_VERSIONS)[number];
