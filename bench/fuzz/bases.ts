/**
 * Valid Databases the mutations start from: one per realistic shape (a single instance, three
 * with a quorum, backups with an object store, scheduling, parameters, a recovery), over every
 * supported major. Each must be judged valid unmutated (test/unit/fuzz/bases.test.ts) and be
 * admitted (the runner's first check).
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Base {
  name: string;
  object: JsonObject;
}

const store = (): JsonObject => ({
  endpoint: "s3.eu-west-1.amazonaws.com",
  bucket: "pgkeeper-backups",
  path: "/prod",
  region: "eu-west-1",
  uriStyle: "path",
  credentials: { secretName: "s3-creds", accessKeyIdKey: "id", secretAccessKeyKey: "secret" },
});

const db = (name: string, spec: JsonObject): JsonObject => ({
  apiVersion: "pgkeeper.dev/v1alpha1",
  kind: "Database",
  metadata: { name },
  spec,
});

export const BASES: readonly Base[] = [
  { name: "single-16", object: db("orders", { version: "16", storage: { size: "10Gi" } }) },
  {
    name: "quorum-17",
    object: db("payments", {
      version: "17",
      instances: 3,
      storage: { size: "20Gi", storageClassName: "fast-ssd" },
      resources: {
        requests: { cpu: "500m", memory: "1Gi" },
        limits: { cpu: "2", memory: "2Gi" },
      },
      postgresql: { synchronous: { mode: "quorum", number: 1 } },
      failover: { enabled: true, delaySeconds: 10 },
      readOnly: { maxLag: "64Mi" },
    }),
  },
  {
    name: "backups-15",
    object: db("ledger", {
      version: "15",
      instances: 2,
      storage: { size: "50Gi" },
      backup: {
        objectStore: { ...store(), ca: { secretName: "s3-ca", key: "ca.crt" } },
        schedule: "0 3 * * *",
        retention: 7,
        retentionDays: 30,
        archiveTimeoutSeconds: 60,
      },
    }),
  },
  {
    name: "scheduling-18",
    object: db("analytics", {
      version: "18",
      instances: 3,
      storage: { size: "100Gi" },
      scheduling: {
        nodeSelector: {
          "node-role.kubernetes.io/database": "",
          "topology.kubernetes.io/zone": "eu-1a",
        },
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
                    { key: "kubernetes.io/arch", operator: "In", values: ["amd64", "arm64"] },
                  ],
                },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 50,
                preference: { matchExpressions: [{ key: "disk", operator: "Exists" }] },
              },
            ],
          },
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 10,
                podAffinityTerm: {
                  labelSelector: { matchLabels: { app: "analytics-api" } },
                  topologyKey: "topology.kubernetes.io/zone",
                },
              },
            ],
          },
        },
        antiAffinity: "required",
      },
    }),
  },
  {
    name: "parameters-17",
    object: db("catalog", {
      version: "17",
      storage: { size: "5Gi" },
      postgresql: {
        parameters: {
          max_connections: "200",
          shared_buffers: "256MB",
          work_mem: "8MB",
          checkpoint_timeout: "10min",
          random_page_cost: "1.1",
          log_min_duration_statement: "250ms",
          jit: "off",
          wal_compression: "on",
          // An extension's parameter is PostgreSQL's only with its library loaded.
          shared_preload_libraries: "pg_stat_statements",
          "pg_stat_statements.max": "5000",
        },
      },
    }),
  },
  {
    name: "parameters-15",
    object: db("billing", {
      version: "15",
      instances: 2,
      storage: { size: "1Gi" },
      postgresql: {
        parameters: {
          effective_cache_size: "1GB",
          maintenance_work_mem: "64MB",
          huge_pages: "try",
        },
      },
    }),
  },
  {
    name: "recovery-14",
    object: db("restored", {
      version: "14",
      storage: { size: "10Gi" },
      bootstrap: {
        recovery: {
          source: {
            objectStore: {
              endpoint: "minio.storage.svc:9000",
              bucket: "pg-backups",
              uriStyle: "path",
              credentials: { secretName: "minio" },
            },
            repositoryPath: "/prod/shop/orders/0b8c5f6e-1d2a-4c3b-9e8f-7a6b5c4d3e2f",
          },
          backupSet: "20261202-030000F",
          target: { time: "2026-12-02T10:00:00Z" },
        },
      },
    }),
  },
  {
    name: "full-16",
    object: db("inventory", {
      version: "16",
      image: "docker.io/library/postgres:16.4",
      instances: 3,
      storage: { size: "30Gi" },
      postgresql: { synchronous: { mode: "quorum", number: 2 }, parameters: { work_mem: "16MB" } },
      failover: { enabled: true, delaySeconds: 0, promoteAfterFenceTimeout: false },
      backup: { objectStore: store(), schedule: "@daily" },
      paused: false,
    }),
  },
];
