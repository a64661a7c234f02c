/** bootstrap.recovery (sources that do not exist, of another major, path-like names) and restore. */
import { each, InvalidCase, recovery, spec, STORE } from "./types";

const R = "spec.bootstrap.recovery";
const S = `${R}.source`;
const PATH = `${S}.repositoryPath`;

const paths: InvalidCase[] = each(
  [
    "relative/path",
    "/",
    "/prod/",
    "/prod/${NS}/../other/uid",
    "/prod/..",
    "/..",
    "//prod/${NS}/${SOURCE}/${SOURCE_UID}",
    "/prod//${NS}/${SOURCE}/${SOURCE_UID}",
    "/prod/${NS}/${SOURCE}//${SOURCE_UID}",
    "/prod/${NS}/./${SOURCE_UID}",
    // Not the <path>/<namespace>/<name>/<uid> shape.
    "/${SOURCE}",
    "/${NS}/${SOURCE}",
    // A name that is no Database name, a namespace that is no namespace, a uid that is no uid.
    "/prod/${NS}/Bad_Name/${SOURCE_UID}",
    "/prod/${NS}/${SOURCE}.backup/${SOURCE_UID}",
    "/prod/Bad.Namespace/${SOURCE}/${SOURCE_UID}",
    "/prod/${NS}/${SOURCE}/not_a_uid",
    "/prod/${NS}/" + "n".repeat(51) + "/${SOURCE_UID}",
    "/prod/${NS} /${SOURCE}/${SOURCE_UID}",
    "/prod/${NS}/${SOURCE}/${SOURCE_UID}\n",
  ],
  (repositoryPath, i) => ({
    id: `recovery-path-${i}`,
    spec: recovery({ repositoryPath }),
    field: PATH,
  }),
);

const sources: InvalidCase[] = [
  // The source Database exists and is a version-15 one: another major cannot read its backups.
  { id: "recovery-source-other-major-16", spec: recovery({}, {}, "16"), field: PATH },
  { id: "recovery-source-other-major-17", spec: recovery({}, {}, "17"), field: PATH },
  { id: "recovery-source-other-major-14", spec: recovery({}, {}, "14"), field: PATH },
  // The credentials Secret does not exist in the namespace.
  {
    id: "recovery-secret-missing",
    spec: recovery({ objectStore: { ...STORE, credentials: { secretName: "no-such-secret" } } }),
    field: `${S}.objectStore.credentials.secretName`,
  },
  {
    id: "recovery-store-path",
    spec: recovery({ objectStore: { ...STORE, path: "/prod" } }),
    field: `${S}.objectStore.path`,
  },
  { id: "recovery-no-source", spec: spec({ bootstrap: { recovery: {} } }), field: S },
  {
    id: "recovery-no-store",
    spec: spec({ bootstrap: { recovery: { source: { repositoryPath: "/prod/a/b/c" } } } }),
    field: `${S}.objectStore`,
  },
  {
    id: "recovery-no-path",
    spec: spec({ bootstrap: { recovery: { source: { objectStore: STORE } } } }),
    field: PATH,
  },
  {
    id: "recovery-store-bad-bucket",
    spec: recovery({ objectStore: { ...STORE, bucket: "B" } }),
    field: `${S}.objectStore.bucket`,
  },
  { id: "recovery-string", spec: spec({ bootstrap: { recovery: "latest" } }), field: R },
];

const T = `${R}.target`;
const targets: InvalidCase[] = each(
  [
    ["two-kinds", { time: "2026-12-02T10:00:00Z", lsn: "0/3000060" }, T],
    ["none", {}, T],
    ["time-words", { time: "yesterday" }, `${T}.time`],
    ["time-month-13", { time: "2026-13-01T00:00:00Z" }, `${T}.time`],
    ["time-no-zone", { time: "2026-12-02T10:00:00" }, `${T}.time`],
    ["lsn-bad-hex", { lsn: "0/XYZ" }, `${T}.lsn`],
    ["lsn-no-slash", { lsn: "3000060" }, `${T}.lsn`],
    ["xid-2", { xid: 2 }, `${T}.xid`],
    ["xid-too-big", { xid: 5000000000 }, `${T}.xid`],
    ["xid-string", { xid: "100" }, `${T}.xid`],
    ["name-empty", { name: "" }, `${T}.name`],
    ["name-quote", { name: "it's" }, `${T}.name`],
    ["name-long", { name: "r".repeat(64) }, `${T}.name`],
    ["immediate-false", { immediate: false }, `${T}.immediate`],
    ["immediate-string", { immediate: "true" }, `${T}.immediate`],
  ] as const,
  ([what, target, field]) => ({
    id: `recovery-target-${what}`,
    spec: recovery({}, { target }),
    field,
  }),
);
targets.push(
  {
    id: "recovery-backupset-latest",
    spec: recovery({}, { backupSet: "latest" }),
    field: `${R}.backupSet`,
  },
  {
    id: "recovery-backupset-bad-type",
    spec: recovery({}, { backupSet: "20261202-030000X" }),
    field: `${R}.backupSet`,
  },
);

const restore: InvalidCase[] = [
  {
    id: "restore-replaced",
    spec: spec({ bootstrap: { restore: { source: "orders" } } }),
    field: "spec.bootstrap.restore",
  },
  {
    id: "restore-no-source",
    spec: spec({ bootstrap: { restore: {} } }),
    field: "spec.bootstrap.restore",
  },
];

export const BOOTSTRAP: InvalidCase[] = [...paths, ...sources, ...targets, ...restore];
