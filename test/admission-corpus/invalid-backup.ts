/** spec.backup: object store, schedule (incl. schedules that can never fire), retention. */
import { each, InvalidCase, spec, STORE, stored } from "./types";

const B = "spec.backup";
const O = `${B}.objectStore`;

const needsStore: InvalidCase[] = each(
  [
    ["schedule", "0 3 * * *"],
    ["retention", 7],
    ["retentionDays", 30],
    ["archiveTimeoutSeconds", 60],
  ] as const,
  ([field, value]) => ({
    id: `backup-${field}-without-store`,
    spec: spec({ backup: { [field]: value } }),
    field: `${B}.${field}`,
  }),
);

const bounds: InvalidCase[] = each(
  [
    ["archiveTimeoutSeconds", 0],
    ["archiveTimeoutSeconds", 3601],
    ["archiveTimeoutSeconds", -60],
    ["archiveTimeoutSeconds", "60"],
    ["retention", 0],
    ["retention", 366],
    ["retention", 1e9],
    ["retention", 2.5],
    ["retentionDays", 0],
    ["retentionDays", 3651],
    ["retentionDays", "30"],
  ] as const,
  ([field, value], i) => ({
    id: `backup-${field}-${i}`,
    spec: stored({ [field]: value }),
    field: `${B}.${field}`,
  }),
);

const schedules: InvalidCase[] = each(
  [
    // Malformed.
    "61 * * * *",
    "* * * *",
    "0 0 * * * *",
    "@every 1h",
    "@reboot",
    "@weekly ",
    "0 25 * * *",
    "0 0 * 13 *",
    "0 0 * * 7",
    "0 0 0 * *",
    "*/0 * * * *",
    "TZ=UTC 0 0 * * *",
    " 0 0 * * *",
    "5-1 * * * *",
    "0 0 * foo *",
    "",
    "0 0 1,,2 * *",
    // Well-formed but can never fire: no such date.
    "0 0 30 2 *",
    "0 0 31 2 *",
    "0 0 30,31 2 *",
    "0 0 30-31 feb *",
    "0 0 31 4,6,9,11 *",
    "0 0 31 4 *",
    "0 0 31 6 *",
    "0 0 31 9 *",
    "0 0 31 nov *",
    "0 0 31 apr,jun *",
    "0 0 30 2 ?",
    "15 4 31 4-6/2 ?",
  ],
  (schedule, i) => ({
    id: `backup-schedule-${i}`,
    spec: stored({ schedule }),
    field: `${B}.schedule`,
  }),
);
schedules.push({
  id: "backup-schedule-number",
  spec: stored({ schedule: 3 }),
  field: `${B}.schedule`,
});

const store = (objectStore: object): object => spec({ backup: { objectStore } });
const stores: InvalidCase[] = [
  ...each(
    [
      ["endpoint", "https://s3.example.com"],
      ["endpoint", ""],
      ["endpoint", "s3 .example"],
      ["endpoint", "s3.example.com:99999"],
      ["endpoint", "s3.example.com:0"],
      ["endpoint", "s3.example.com/path"],
      ["endpoint", "e".repeat(254)],
      ["endpoint", "-s3.example.com"],
      ["bucket", "UPPER"],
      ["bucket", "ab"],
      ["bucket", "a_b"],
      ["bucket", "192.168.1.1"],
      ["bucket", "a..b"],
      ["bucket", "b".repeat(64)],
      ["bucket", "bucket-"],
      ["path", "relative/path"],
      ["path", "/a/../b"],
      ["path", "/.."],
      ["path", "//x"],
      ["path", "/a//b"],
      ["path", "/" + "p".repeat(600)],
      ["region", "EU_West"],
      ["region", ""],
      ["uriStyle", "virtual"],
    ] as const,
    ([field, value], i) => ({
      id: `store-${field}-${i}`,
      spec: store({ ...STORE, [field]: value }),
      field: `${O}.${field}`,
    }),
  ),
  {
    id: "store-no-bucket",
    spec: store({ endpoint: "s3.example.internal", credentials: STORE.credentials }),
    field: `${O}.bucket`,
  },
  {
    id: "store-no-endpoint",
    spec: store({ bucket: "pgbackups", credentials: STORE.credentials }),
    field: `${O}.endpoint`,
  },
  {
    id: "store-no-credentials",
    spec: store({ endpoint: "s3.example.internal", bucket: "pgbackups" }),
    field: `${O}.credentials`,
  },
  {
    id: "store-credentials-no-name",
    spec: store({ ...STORE, credentials: {} }),
    field: `${O}.credentials.secretName`,
  },
  {
    id: "store-credentials-bad-name",
    spec: store({ ...STORE, credentials: { secretName: "Bad_Name" } }),
    field: `${O}.credentials.secretName`,
  },
  {
    id: "store-credentials-bad-key",
    spec: store({ ...STORE, credentials: { secretName: "s3", accessKeyIdKey: "bad key" } }),
    field: `${O}.credentials.accessKeyIdKey`,
  },
  {
    id: "store-credentials-bad-secret-key",
    spec: store({ ...STORE, credentials: { secretName: "s3", secretAccessKeyKey: "a/b" } }),
    field: `${O}.credentials.secretAccessKeyKey`,
  },
  {
    id: "store-ca-no-name",
    spec: store({ ...STORE, ca: { key: "ca.crt" } }),
    field: `${O}.ca.secretName`,
  },
  {
    id: "store-ca-bad-key",
    spec: store({ ...STORE, ca: { secretName: "ca", key: "bad/key" } }),
    field: `${O}.ca.key`,
  },
  { id: "store-string", spec: spec({ backup: { objectStore: "s3://bucket" } }), field: O },
];

const removed: InvalidCase[] = [
  {
    id: "backup-volume",
    spec: spec({ backup: { volume: { size: "10Gi" } } }),
    field: `${B}.volume`,
  },
  {
    id: "backup-volume-with-store",
    spec: stored({ volume: { size: "10Gi" } }),
    field: `${B}.volume`,
  },
];

export const BACKUP: InvalidCase[] = [
  ...needsStore,
  ...bounds,
  ...schedules,
  ...stores,
  ...removed,
];
