/**
 * The Database's scalar fields with what the API says about them, so the generic mutations can
 * aim at boundaries (min-1, min, max, max+1), enums and types. Written from database-schema.ts
 * by hand: the fuzzer must not derive its idea of the API from the code it tests.
 */
import type { Path } from "./paths";

export type FieldKind = "int" | "string" | "bool" | "enum" | "quantity" | "size";

export interface FieldSpec {
  path: Path;
  kind: FieldKind;
  min?: number;
  max?: number;
  /** For strings: the length bounds. */
  minLength?: number;
  maxLength?: number;
  values?: readonly string[];
}

const S = ["spec"] as const;
const STORE = [...S, "backup", "objectStore"] as const;
const SOURCE = [...S, "bootstrap", "recovery", "source"] as const;
const TARGET = [...S, "bootstrap", "recovery", "target"] as const;

export const FIELDS: readonly FieldSpec[] = [
  { path: [...S, "version"], kind: "enum", values: ["14", "15", "16", "17", "18"] },
  { path: [...S, "image"], kind: "string", minLength: 1, maxLength: 512 },
  { path: [...S, "instances"], kind: "int", min: 1, max: 9 },
  { path: [...S, "storage", "size"], kind: "size" },
  { path: [...S, "storage", "storageClassName"], kind: "string", maxLength: 253 },
  { path: [...S, "resources", "requests", "cpu"], kind: "quantity" },
  { path: [...S, "resources", "requests", "memory"], kind: "quantity" },
  { path: [...S, "resources", "limits", "cpu"], kind: "quantity" },
  { path: [...S, "resources", "limits", "memory"], kind: "quantity" },
  {
    path: [...S, "scheduling", "antiAffinity"],
    kind: "enum",
    values: ["preferred", "required", "none"],
  },
  { path: [...S, "postgresql", "synchronous", "mode"], kind: "enum", values: ["off", "quorum"] },
  { path: [...S, "postgresql", "synchronous", "number"], kind: "int", min: 1, max: 8 },
  { path: [...S, "failover", "enabled"], kind: "bool" },
  { path: [...S, "failover", "delaySeconds"], kind: "int", min: 0, max: 3600 },
  { path: [...S, "failover", "promoteAfterFenceTimeout"], kind: "bool" },
  { path: [...S, "readOnly", "maxLag"], kind: "size" },
  { path: [...S, "backup", "archiveTimeoutSeconds"], kind: "int", min: 1, max: 3600 },
  { path: [...S, "backup", "schedule"], kind: "string", maxLength: 100 },
  { path: [...S, "backup", "retention"], kind: "int", min: 1, max: 365 },
  { path: [...S, "backup", "retentionDays"], kind: "int", min: 1, max: 3650 },
  { path: [...STORE, "endpoint"], kind: "string", minLength: 1, maxLength: 253 },
  { path: [...STORE, "bucket"], kind: "string", minLength: 3, maxLength: 63 },
  { path: [...STORE, "path"], kind: "string", maxLength: 512 },
  { path: [...STORE, "region"], kind: "string", maxLength: 63 },
  { path: [...STORE, "uriStyle"], kind: "enum", values: ["path", "host"] },
  { path: [...STORE, "credentials", "secretName"], kind: "string", maxLength: 253 },
  { path: [...STORE, "credentials", "accessKeyIdKey"], kind: "string", maxLength: 253 },
  { path: [...STORE, "ca", "key"], kind: "string", maxLength: 253 },
  { path: [...SOURCE, "repositoryPath"], kind: "string", minLength: 2, maxLength: 1024 },
  { path: [...SOURCE, "objectStore", "bucket"], kind: "string", minLength: 3, maxLength: 63 },
  { path: [...S, "bootstrap", "recovery", "backupSet"], kind: "string", maxLength: 64 },
  { path: [...TARGET, "xid"], kind: "int", min: 3, max: 4294967295 },
  { path: [...TARGET, "name"], kind: "string", minLength: 1, maxLength: 63 },
  { path: [...TARGET, "lsn"], kind: "string" },
  { path: [...TARGET, "immediate"], kind: "bool" },
  { path: [...S, "paused"], kind: "bool" },
];

/** Fields whose absence the API refuses (required), with the object they belong to. */
export const REQUIRED: readonly Path[] = [
  [...S, "version"],
  [...S, "storage"],
  [...S, "storage", "size"],
  [...STORE, "endpoint"],
  [...STORE, "bucket"],
  [...STORE, "credentials"],
  [...STORE, "credentials", "secretName"],
  [...STORE, "ca", "secretName"],
  [...SOURCE],
  [...SOURCE, "objectStore"],
  [...SOURCE, "repositoryPath"],
  [...SOURCE, "objectStore", "credentials", "secretName"],
  ["spec"],
];
