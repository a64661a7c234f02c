/**
 * Mutations that aim at one field's own rules: names around the child-name limits, cron
 * schedules, recovery targets, quantities, images, object store names, synchronous replication
 * and YAML's readings of values users write unquoted.
 */
import type { Json } from "../bases";
import type { Rng } from "../prng";
import { set } from "./paths";
import { QUANTITIES, repeat } from "./values";
import type { Mutation } from "./types";

const pickSet =
  (path: readonly string[], values: readonly Json[]): Mutation["apply"] =>
  (rng, doc) => {
    const value = rng.pick(values);
    set(doc, path, value);
    return `${path.join(".")} = ${JSON.stringify(value)?.slice(0, 80)}`;
  };

function dbName(rng: Rng): string {
  const n = rng.pick([1, 2, 40, 49, 50, 51, 52, 53, 54, 63, 64, 253, 254]);
  const name = `a${repeat(n - 1, rng.pick(["b", "b-1", "x"]))}`.slice(0, n);
  const twist = rng.int(0, 7);
  if (twist === 0) return name.toUpperCase();
  if (twist === 1) return `1${name.slice(1)}`;
  if (twist === 2) return `${name.slice(0, -1)}-`;
  if (twist === 3) return `${name.slice(0, -1)}.`.replace(/^\./, "a");
  if (twist === 4) return `${name.slice(0, Math.max(0, n - 2))}.b`;
  return name.replace(/-$/, "z");
}

const CRON = [
  "0 3 * * *",
  "*/15 * * * *",
  "0 0 30 2 *",
  "0 0 31 4,6,9,11 *",
  "0 0 29 2 *",
  "0 0 31 2 1",
  "0 0 30 2 ?",
  "0 0 * * 7",
  "0 0 * * 0",
  "60 * * * *",
  "0 24 * * *",
  "0 0 0 * *",
  "0 0 1 13 *",
  "0 0 1 jan mon",
  "0 0 1 JAN MON",
  "0 0 1 january *",
  "*/0 * * * *",
  "5-1 * * * *",
  "0 0 * * mon-fri",
  "1,2,,3 * * * *",
  "0 3 * *",
  "0 0 3 * * *",
  "@daily",
  "@every 1h",
  "@reboot",
  "@Daily",
  " 0 3 * * *",
  "0 3 * * * ",
  "0\t3 * * *",
  "0  3 * * *",
  "TZ=UTC 0 3 * * *",
  "CRON_TZ=UTC 0 3 * * *",
  "? ? ? ? ?",
  "5/10 * * * *",
  "0-59/61 * * * *",
  "0 0 L * *",
  "0 0 15W * *",
  "0 0 * * 5#3",
  "",
  repeat(101, "* "),
];

const TARGETS: Json[] = [
  { time: "2026-12-02T10:00:00Z" },
  { time: "2026-02-30T10:00:00Z" },
  { time: "2026-02-29T10:00:00Z" },
  { time: "2028-02-29T10:00:00Z" },
  { time: "2026-12-02T24:00:00Z" },
  { time: "2026-12-02T10:60:00Z" },
  { time: "2026-12-02T23:59:60Z" },
  { time: "2026-12-02 10:00:00Z" },
  { time: "2026-12-02T10:00:00" },
  { time: "2026-12-02T10:00:00+01:00" },
  { time: "2026-12-02T10:00:00.123456789Z" },
  { time: "2026-12-02t10:00:00z" },
  { time: "2026-13-02T10:00:00Z" },
  { time: "yesterday" },
  { lsn: "0/3000060" },
  { lsn: "FFFFFFFF/FFFFFFFF" },
  { lsn: "100000000/0" },
  { lsn: "0/" },
  { lsn: "0x0/3000060" },
  { xid: 3 },
  { xid: 2 },
  { xid: 4294967295 },
  { xid: 4294967296 },
  { xid: "1000" },
  { name: "before-migration" },
  { name: "it's" },
  { name: "" },
  { name: repeat(64) },
  { name: "back\\slash" },
  { immediate: true },
  { immediate: false },
  { time: "2026-12-02T10:00:00Z", lsn: "0/1" },
  {},
];

const BACKUP_SETS = [
  "20261202-030000F",
  "20261202-030000F_20261203-030000D",
  "20261202-030000F_20261203-030000I",
  "20261399-999999F",
  "20260230-030000F",
  "20261202-030000D",
  "20261202-030000F_20261203-030000F",
  "latest",
  "",
];

const IMAGES = [
  "postgres:16",
  "postgres:17",
  "docker.io/library/postgres:15.8-bookworm",
  "ghcr.io/acme/postgres:16.4-alpine",
  "postgres",
  "postgres:latest",
  "postgres@sha256:" + "a".repeat(64),
  "postgres:16@sha256:" + "a".repeat(64),
  "postgres@sha256:abc",
  "Postgres:16",
  "postgres:16 ",
  "postgres: 16",
  "localhost:5000/postgres:16",
  "registry:5000/pg/postgres:16",
  "[::1]:5000/postgres:16",
  "my_registry.io/pg:16",
  "postgres:" + "a".repeat(129),
  "postgres:-16",
  "postgres:.16",
  "postgres::16",
  "a//b:16",
  "postgres:9.6",
  "postgres:160",
  "postgres:16beta1",
  "",
  " ",
];

const ENDPOINTS = [
  "s3.amazonaws.com",
  "minio:9000",
  "minio:0",
  "minio:65535",
  "minio:65536",
  "minio:99999",
  "10.0.0.1:9000",
  "https://s3.amazonaws.com",
  "host..name",
  "-host",
  `${repeat(64)}.example.com`,
  "a",
  "host_name",
  "[::1]:9000",
];
const BUCKETS = [
  "pg",
  "ab",
  "a..b",
  "192.168.1.1",
  "Bucket",
  "xn--bucket",
  "bucket-s3alias",
  "b-",
  repeat(63),
  repeat(64),
  "a.-b",
  "my_bucket",
];
const SECRET_NAMES = [
  "s3-creds",
  "a..b",
  "a.-b",
  "a-.b",
  "A",
  "-a",
  repeat(253),
  repeat(254),
  "a.b.c",
  "a_b",
];
const SECRET_KEYS = ["id", ".", "..", "..a", ".a", "a b", "a/b", repeat(253), repeat(254), "-_."];
const REGIONS = ["us-east-1", "", "US-EAST-1", repeat(63), repeat(64), "eu_west"];
const PATHS = ["/", "/prod", "prod", "/a/../b", "/..", "//", "/a b", repeat(513, "/a")];
const REPO_PATHS = [
  "/prod/shop/orders/uid",
  "/",
  "/a/",
  "/../x",
  "/a/../b",
  "/a/..",
  "a/b",
  "/a/.",
  "/..a",
];

export const DOMAIN_MUTATIONS: readonly Mutation[] = [
  {
    name: "name",
    weight: 5,
    apply: (rng, doc) => {
      const name = dbName(rng);
      set(doc, ["metadata", "name"], name);
      return `metadata.name = ${JSON.stringify(name)} (${name.length} chars)`;
    },
  },
  { name: "cron", weight: 5, apply: pickSet(["spec", "backup", "schedule"], CRON) },
  {
    name: "recovery-target",
    weight: 4,
    apply: pickSet(["spec", "bootstrap", "recovery", "target"], TARGETS),
  },
  {
    name: "backup-set",
    weight: 2,
    apply: pickSet(["spec", "bootstrap", "recovery", "backupSet"], BACKUP_SETS),
  },
  {
    name: "repository-path",
    weight: 1,
    apply: pickSet(["spec", "bootstrap", "recovery", "source", "repositoryPath"], REPO_PATHS),
  },
  {
    name: "recovery-store-path",
    weight: 1,
    apply: pickSet(
      ["spec", "bootstrap", "recovery", "source", "objectStore", "path"],
      ["/prod", "/"],
    ),
  },
  {
    name: "quantity",
    weight: 6,
    apply: (rng, doc) => {
      const path = rng.pick([
        ["spec", "resources", "requests", "cpu"],
        ["spec", "resources", "requests", "memory"],
        ["spec", "resources", "limits", "cpu"],
        ["spec", "resources", "limits", "memory"],
        ["spec", "storage", "size"],
        ["spec", "readOnly", "maxLag"],
      ]);
      const value = rng.pick(QUANTITIES);
      set(doc, path, value);
      return `${path.join(".")} = ${JSON.stringify(value)}`;
    },
  },
  {
    name: "requests-over-limits",
    weight: 2,
    apply: (rng, doc) => {
      const r = rng.pick(["cpu", "memory"]);
      const [req, lim] =
        r === "cpu"
          ? rng.pick([
              ["2", "1"],
              ["1", "1000m"],
              ["1001m", "1"],
            ])
          : rng.pick([
              ["2Gi", "1Gi"],
              ["1Gi", "1024Mi"],
              ["1025Mi", "1Gi"],
            ]);
      set(doc, ["spec", "resources", "requests", r], req);
      set(doc, ["spec", "resources", "limits", r], lim);
      return `resources ${r}: requests ${req}, limits ${lim}`;
    },
  },
  { name: "image", weight: 4, apply: pickSet(["spec", "image"], IMAGES) },
  {
    name: "endpoint",
    weight: 2,
    apply: pickSet(["spec", "backup", "objectStore", "endpoint"], ENDPOINTS),
  },
  {
    name: "bucket",
    weight: 2,
    apply: pickSet(["spec", "backup", "objectStore", "bucket"], BUCKETS),
  },
  {
    name: "secret-name",
    weight: 2,
    apply: pickSet(["spec", "backup", "objectStore", "credentials", "secretName"], SECRET_NAMES),
  },
  {
    name: "secret-key",
    weight: 2,
    apply: pickSet(
      ["spec", "backup", "objectStore", "credentials", "secretAccessKeyKey"],
      SECRET_KEYS,
    ),
  },
  {
    name: "region",
    weight: 1,
    apply: pickSet(["spec", "backup", "objectStore", "region"], REGIONS),
  },
  {
    name: "store-path",
    weight: 1,
    apply: pickSet(["spec", "backup", "objectStore", "path"], PATHS),
  },
  {
    name: "synchronous",
    weight: 4,
    apply: (rng, doc) => {
      const sync = rng.pick<Json>([
        { mode: "quorum" },
        { mode: "quorum", number: 1 },
        { mode: "quorum", number: 2 },
        { mode: "quorum", number: 3 },
        { mode: "off", number: 1 },
        { number: 1 },
        { mode: false },
        { mode: "Quorum", number: 1 },
        { mode: "on" },
        { mode: "sync", number: 1 },
      ]);
      const instances = rng.pick<Json>([1, 2, 3, 9]);
      set(doc, ["spec", "postgresql", "synchronous"], sync);
      set(doc, ["spec", "instances"], instances);
      return `synchronous = ${JSON.stringify(sync)}, instances = ${instances}`;
    },
  },
  {
    name: "yaml-habit",
    weight: 4,
    apply: (rng, doc) => {
      const [path, value] = rng.pick<[string[], Json]>([
        [["spec", "postgresql", "synchronous", "mode"], false],
        [["spec", "postgresql", "synchronous", "mode"], true],
        [["spec", "resources", "requests", "cpu"], 0.5],
        [["spec", "resources", "requests", "cpu"], 2],
        [["spec", "resources", "limits", "memory"], 1073741824],
        [["spec", "resources", "requests", "memory"], 1.5],
        [["spec", "storage", "size"], 10737418240],
        [["spec", "storage", "size"], 100],
        [["spec", "readOnly", "maxLag"], 67108864],
        [["spec", "version"], 16],
        [["spec", "instances"], "3"],
        [["spec", "failover", "enabled"], "yes"],
        [["spec", "paused"], "false"],
        [["spec", "backup", "schedule"], 5],
      ]);
      set(doc, path, value);
      return `${path.join(".")} = ${JSON.stringify(value)} (YAML reading)`;
    },
  },
  {
    name: "backup-without-store",
    weight: 2,
    apply: (rng, doc) => {
      const field = rng.pick([
        "schedule",
        "retention",
        "retentionDays",
        "archiveTimeoutSeconds",
        "volume",
      ]);
      const value: Json =
        {
          schedule: "@daily",
          retention: 3,
          retentionDays: 7,
          archiveTimeoutSeconds: 60,
          volume: { size: "10Gi" },
        }[field] ?? null;
      set(doc, ["spec", "backup"], { [field]: value });
      return `backup = {${field}: ${JSON.stringify(value)}} (no objectStore)`;
    },
  },
  {
    name: "bootstrap-restore",
    weight: 1,
    apply: pickSet(
      ["spec", "bootstrap"],
      [{ restore: { source: "orders" } }, {}, { recovery: {} }],
    ),
  },
];
