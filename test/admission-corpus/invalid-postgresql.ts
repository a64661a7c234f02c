/** postgresql.parameters and synchronous replication. */
import { each, InvalidCase, params, spec } from "./types";

const P = "spec.postgresql.parameters";
/** The field of one parameter, as the webhook names it. */
const p = (name: string): string => `${P}[${name}]`;

const catalog: InvalidCase[] = [
  // Typos (unknown names) on majors with a catalog.
  ...each(
    [
      ["15", "shared_bufers"],
      ["15", "work_memm"],
      ["15", "max_conections"],
      ["15", "effective_cache"],
      ["15", "maintainance_work_mem"],
      ["17", "checkpoint_timout"],
      ["17", "log_min_duration"],
      ["17", "random_page_costs"],
      // Removed in 17, still in 15: unknown to 17.
      ["17", "old_snapshot_threshold"],
      ["17", "db_user_namespace"],
      // Added in 17: unknown to 15.
      ["15", "summarize_wal"],
      ["15", "io_combine_limit"],
      // Configuration-file directives are not parameters.
      ["15", "include"],
      ["15", "include_if_exists"],
      ["17", "include_dir"],
    ] as const,
    ([version, name]) => ({
      id: `parameter-unknown-${version}-${name}`,
      spec: params({ [name]: "1" }, version),
      field: p(name),
    }),
  ),
  // Internal (read-only) parameters.
  ...each(
    [
      "block_size",
      "server_version",
      "data_checksums",
      "wal_segment_size",
      "server_encoding",
      "max_identifier_length",
      "segment_size",
      "wal_block_size",
    ],
    name => ({
      id: `parameter-internal-${name}`,
      spec: params({ [name]: "8192" }),
      field: p(name),
    }),
  ),
  // Values PostgreSQL would refuse.
  ...each(
    [
      ["15", "work_mem", "8XB"],
      ["15", "work_mem", "8mb"],
      ["15", "shared_buffers", "1TBx"],
      ["15", "shared_buffers", "lots"],
      ["15", "max_connections", "0"],
      ["15", "max_connections", "1000000"],
      ["15", "max_connections", "-5"],
      ["15", "work_mem", "3TB"],
      ["15", "wal_compression", "maybe"],
      ["15", "log_min_messages", "loud"],
      ["15", "autovacuum", "yess"],
      ["15", "random_page_cost", "-1"],
      ["15", "checkpoint_timeout", "1s"],
      ["15", "checkpoint_timeout", "2d"],
      ["15", "statement_timeout", "5 lightyears"],
      ["17", "max_connections", "abc"],
      ["17", "wal_compression", "brotli"],
      ["17", "shared_buffers", "8kb"],
      ["15", "jit", "perhaps"],
      ["15", "effective_io_concurrency", "5000"],
      ["15", "full_page_writes", "off"],
      ["15", "full_page_writes", "false"],
      ["17", "full_page_writes", "0"],
      ["17", "full_page_writes", "no"],
    ] as const,
    ([version, name, value], i) => ({
      id: `parameter-value-${i}-${version}-${name}`,
      spec: params({ [name]: value }, version),
      field: p(name),
    }),
  ),
];

// wal_level minimal: the CRD's CEL refuses it on the map (which names no key), before the webhook.
const walLevel: InvalidCase[] = each(
  [
    ["15", "minimal"],
    ["18", "MINIMAL"],
  ] as const,
  ([version, value]) => ({
    id: `parameter-wal-level-${version}-${value}`,
    spec: params({ wal_level: value }, version),
    field: P,
  }),
);

const owned: InvalidCase[] = each(
  [
    "port",
    "listen_addresses",
    "wal_log_hints",
    "archive_command",
    "synchronous_commit",
    "primary_conninfo",
    "ssl",
    "hba_file",
    "data_directory",
    "cluster_name",
    "Port",
    "WAL_LOG_HINTS",
  ],
  name => ({ id: `parameter-owned-${name}`, spec: params({ [name]: "1" }), field: P }),
);

const shapes: InvalidCase[] = [
  ...each(
    ["bad name", "1abc", "a..b", "work_mem=8MB", "-x", "a b.c", "__proto__", "é_param", "a.", ".a"],
    (name, i) => ({ id: `parameter-name-${i}`, spec: params({ [name]: "1" }), field: p(name) }),
  ),
  { id: "parameter-empty-value", spec: params({ work_mem: "" }), field: p("work_mem") },
  { id: "parameter-blank-value", spec: params({ work_mem: "  " }), field: p("work_mem") },
  { id: "parameter-newline", spec: params({ work_mem: "8MB\nport = 1" }), field: p("work_mem") },
  {
    id: "parameter-carriage-return",
    spec: params({ search_path: "public\rport=1" }),
    field: p("search_path"),
  },
  {
    id: "parameter-nul",
    spec: params({ application_name: "a\u0000b" }),
    field: p("application_name"),
  },
  {
    id: "parameter-value-4097",
    spec: params({ search_path: "a".repeat(4097) }),
    field: p("search_path"),
  },
  { id: "parameter-duplicate-case", spec: params({ work_mem: "8MB", WORK_MEM: "16MB" }), field: P },
  {
    id: "parameters-too-many",
    spec: params(Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`ext.p${i}`, "1"]))),
    field: P,
  },
  { id: "parameter-value-object", spec: params({ work_mem: { mb: 8 } }), field: p("work_mem") },
  {
    id: "parameter-value-list",
    spec: params({ shared_preload_libraries: ["a", "b"] }),
    field: p("shared_preload_libraries"),
  },
];

const S = "spec.postgresql.synchronous";
const sync = (s: object, instances = 3): object =>
  spec({ instances, postgresql: { synchronous: s } });
const synchronous: InvalidCase[] = [
  ...each(["on", "sync", "Quorum", "any", ""], m => ({
    id: `sync-mode-${m || "empty"}`,
    spec: sync({ mode: m }),
    field: `${S}.mode`,
  })),
  { id: "sync-quorum-one-instance", spec: sync({ mode: "quorum", number: 1 }, 1), field: `${S}` },
  { id: "sync-quorum-no-number", spec: sync({ mode: "quorum" }), field: `${S}.number` },
  { id: "sync-number-zero", spec: sync({ mode: "quorum", number: 0 }), field: `${S}.number` },
  {
    id: "sync-number-eq-instances",
    spec: sync({ mode: "quorum", number: 3 }),
    field: `${S}.number`,
  },
  {
    id: "sync-number-over-max",
    spec: sync({ mode: "quorum", number: 9 }, 9),
    field: `${S}.number`,
  },
  { id: "sync-number-without-mode", spec: sync({ number: 1 }), field: `${S}.number` },
  { id: "sync-number-mode-off", spec: sync({ mode: "off", number: 1 }), field: `${S}.number` },
  { id: "sync-number-string", spec: sync({ mode: "quorum", number: "1" }), field: `${S}.number` },
  { id: "sync-number-float", spec: sync({ mode: "quorum", number: 1.5 }), field: `${S}.number` },
  {
    id: "sync-string",
    spec: spec({ instances: 3, postgresql: { synchronous: "quorum" } }),
    field: S,
  },
];

export const POSTGRESQL: InvalidCase[] = [
  ...catalog,
  ...walLevel,
  ...owned,
  ...shapes,
  ...synchronous,
];
