/** Specs that must be admitted: realistic production Databases, every supported version. */
import { BASE, ownImage, recovery, SECRET, spec, Spec, STORE, ValidCase } from "./types";

const DIGEST = "sha256:" + "c".repeat(64);

const PROD_SCHEDULING: Spec = {
  nodeSelector: { "kubernetes.io/os": "linux", "node.example.com/pool": "databases" },
  tolerations: [
    { key: "dedicated", operator: "Equal", value: "postgres", effect: "NoSchedule" },
    {
      key: "node.kubernetes.io/unreachable",
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: 30,
    },
  ],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              {
                key: "topology.kubernetes.io/zone",
                operator: "In",
                values: ["eu-west-1a", "eu-west-1b", "eu-west-1c"],
              },
            ],
          },
        ],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 50,
          preference: {
            matchExpressions: [{ key: "node.example.com/disk", operator: "In", values: ["nvme"] }],
          },
        },
      ],
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            topologyKey: "topology.kubernetes.io/zone",
            labelSelector: { matchLabels: { "pgkeeper.dev/database": "orders" } },
          },
        },
      ],
    },
  },
  antiAffinity: "required",
};

/** A production Database of `version`: 3 instances, quorum commits, backups, tuned parameters. */
const production = (version: string, parameters: Record<string, string>): Spec => ({
  version,
  image: `registry.example.com/postgres/postgres:${version}.4-bookworm@${DIGEST}`,
  instances: 3,
  storage: { size: "500Gi", storageClassName: "gp3-encrypted" },
  resources: { requests: { cpu: "2", memory: "8Gi" }, limits: { cpu: "4", memory: "8Gi" } },
  scheduling: PROD_SCHEDULING,
  postgresql: { parameters, synchronous: { mode: "quorum", number: 1 } },
  failover: { enabled: true, delaySeconds: 10 },
  readOnly: { maxLag: "128Mi" },
  backup: {
    objectStore: { ...STORE, path: "/prod", region: "eu-west-1", uriStyle: "host" },
    archiveTimeoutSeconds: 60,
    schedule: "0 3 * * *",
    retention: 14,
    retentionDays: 30,
  },
});

const TUNED: Record<string, string> = {
  shared_buffers: "2GB",
  effective_cache_size: "6GB",
  work_mem: "64MB",
  maintenance_work_mem: "512MB",
  max_connections: "300",
  random_page_cost: "1.1",
  log_min_duration_statement: "250ms",
  checkpoint_timeout: "15min",
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.max": "10000",
  log_line_prefix: "%m [%p] %q%u@%d ",
};

export const VALID: ValidCase[] = [
  // A major pgkeeper builds no image for names its own (admission refuses it otherwise).
  ...["14", "15", "16", "17", "18"].map(v => ({
    id: `minimal-${v}`,
    spec: spec({ version: v, ...ownImage(v) }),
  })),
  ...["14", "15", "16", "17", "18"].map(v => ({
    id: `production-${v}`,
    spec: production(v, TUNED),
  })),
  {
    id: "spread-over-zones-with-metrics-queries",
    spec: spec({
      instances: 3,
      scheduling: {
        antiAffinity: "required",
        topologySpread: [
          {
            topologyKey: "topology.kubernetes.io/zone",
            whenUnsatisfiable: "DoNotSchedule",
            minDomains: 3,
          },
          { topologyKey: "node.example.com/rack", maxSkew: 2 },
        ],
      },
      monitoring: {
        enabled: true,
        customQueries: [
          { name: "app-queries", key: "queries.yaml" },
          { name: "app-queries", key: "more.yaml" },
        ],
      },
    }),
  },
  {
    id: "quorum-2-of-5",
    spec: spec({ instances: 5, postgresql: { synchronous: { mode: "quorum", number: 2 } } }),
  },
  {
    id: "max-instances",
    spec: spec({ instances: 9, postgresql: { synchronous: { mode: "quorum", number: 8 } } }),
  },
  { id: "name-50-chars", name: "a".repeat(50), spec: spec() },
  { id: "storage-upper-bound", spec: spec({ storage: { size: "64Ti" } }) },
  { id: "storage-decimal", spec: spec({ storage: { size: "1.5Gi" } }) },
  { id: "storage-si", spec: spec({ storage: { size: "500G" } }) },
  {
    id: "storage-class-dns",
    spec: spec({ storage: { size: "10Gi", storageClassName: "ebs.csi.aws.com-gp3" } }),
  },
  {
    id: "cpu-millicores",
    spec: spec({
      resources: {
        requests: { cpu: "250m", memory: "256Mi" },
        limits: { cpu: "1500m", memory: "1Gi" },
      },
    }),
  },
  {
    id: "cpu-decimal",
    spec: spec({ resources: { requests: { cpu: "0.5" }, limits: { cpu: 64 } } }),
  },
  { id: "memory-bytes", spec: spec({ resources: { requests: { memory: "268435456" } } }) },
  {
    id: "memory-large",
    spec: spec({ resources: { requests: { memory: "512Gi" }, limits: { memory: "1Ti" } } }),
  },
  {
    id: "schedule-leap-day",
    spec: spec({ backup: { objectStore: STORE, schedule: "0 0 29 2 *" } }),
  },
  {
    id: "schedule-feb-30-or-monday",
    spec: spec({ backup: { objectStore: STORE, schedule: "0 0 30 2 1" } }),
  },
  {
    id: "schedule-31-any-month",
    spec: spec({ backup: { objectStore: STORE, schedule: "0 0 31 * *" } }),
  },
  {
    id: "schedule-31-some-months",
    spec: spec({ backup: { objectStore: STORE, schedule: "0 0 31 1-4 *" } }),
  },
  {
    id: "schedule-macro",
    spec: spec({
      backup: { objectStore: STORE, schedule: "@daily", retention: 365, retentionDays: 3650 },
    }),
  },
  {
    id: "schedule-weekdays",
    spec: spec({ backup: { objectStore: STORE, schedule: "30 1 * * mon-fri" } }),
  },
  {
    id: "archiving-only",
    spec: spec({
      backup: {
        objectStore: { ...STORE, ca: { secretName: "internal-ca" } },
        archiveTimeoutSeconds: 3600,
      },
    }),
  },
  {
    id: "store-port",
    spec: spec({ backup: { objectStore: { ...STORE, endpoint: "minio.storage.svc:9000" } } }),
  },
  {
    id: "parameters-17",
    spec: {
      version: "17",
      ...ownImage("17"),
      storage: { size: "10Gi" },
      postgresql: {
        parameters: {
          summarize_wal: "on",
          io_combine_limit: "128kB",
          full_page_writes: "on",
          wal_level: "logical",
          wal_compression: "zstd",
          jit: "off",
        },
      },
    },
  },
  {
    id: "parameters-yaml-numbers",
    spec: spec({
      postgresql: { parameters: { max_connections: 200, autovacuum: true, random_page_cost: 1.1 } },
    }),
  },
  {
    id: "failover-disabled",
    spec: spec({
      instances: 2,
      failover: { enabled: false, delaySeconds: 3600, promoteAfterFenceTimeout: true },
    }),
  },
  { id: "paused", spec: spec({ paused: true }) },
  {
    id: "tolerate-everything",
    spec: spec({ scheduling: { tolerations: [{ operator: "Exists" }], antiAffinity: "none" } }),
  },
  // Recovery: the source exists, same major, with the Secret in the namespace.
  { id: "recovery-same-major", spec: recovery() },
  {
    id: "recovery-point-in-time",
    spec: recovery({}, { target: { time: "2026-12-02T10:00:00Z" }, backupSet: "20261202-030000F" }),
  },
  { id: "recovery-lsn", spec: recovery({}, { target: { lsn: "0/3000060" } }) },
  { id: "recovery-immediate", spec: recovery({}, { target: { immediate: true } }) },
  // The source Database is gone (or was recreated with another uid): its repository outlives it.
  {
    id: "recovery-source-gone",
    spec: recovery(
      { repositoryPath: "/prod/${NS}/deleted-db/0b9c7f4e-3c1d-4b7a-9a55-2f3e4d5c6b7a" },
      {},
      "16",
    ),
  },
  {
    id: "recovery-source-recreated",
    spec: recovery(
      { repositoryPath: "/prod/${NS}/${SOURCE}/0b9c7f4e-3c1d-4b7a-9a55-2f3e4d5c6b7a" },
      {},
      "17",
    ),
  },
  {
    id: "recovery-other-namespace",
    spec: recovery({
      repositoryPath: "/backups/eu/other-team/orders/0b9c7f4e-3c1d-4b7a-9a55-2f3e4d5c6b7a",
    }),
  },
  {
    id: "recovery-with-backup",
    spec: {
      ...recovery(),
      backup: {
        objectStore: { ...STORE, credentials: { secretName: SECRET } },
        schedule: "0 */6 * * *",
      },
    },
  },
  { id: "network-off", spec: { ...BASE, networkPolicy: { enabled: false } } },
  {
    id: "network-clients",
    spec: {
      ...BASE,
      networkPolicy: {
        enabled: true,
        clients: [
          {
            namespaceSelector: { matchLabels: { team: "a" } },
            podSelector: { matchLabels: { app: "api" } },
          },
          { ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } },
          { ipBlock: { cidr: "fd00::/8" } },
        ],
      },
    },
  },
  { id: "network-no-clients", spec: { ...BASE, networkPolicy: { clients: [] } } },
];
