/**
 * The CustomResourceDefinitions of `Database` and `Backup`, built from the schema source. deploy/crd.yaml is
 * this object serialised by hack/generate-crd.ts; crd.test.ts fails when the two drift.
 */
import { GROUP, KIND, PLURAL, SHORT_NAMES, SINGULAR, VERSION } from "./identity";
import { databaseRootRules, databaseSpecSchema, databaseStatusSchema } from "./database-schema";
import { JsonSchema } from "./schema";
import { backupSpecSchema, backupStatusSchema } from "./backup-schema";
import { BACKUP_KIND, BACKUP_PLURAL, BACKUP_SHORT_NAMES, BACKUP_SINGULAR } from "./backup-identity";

/**
 * The CRDs' revision, raised with every change of what allCrds() returns (crd-revision.test.ts
 * fails until it is). The operator installs its own CRDs (cluster/crds.ts) and never replaces a
 * CRD of a higher revision: an older operator taking the lead during a rolling upgrade would
 * otherwise take fields away from the schema, and the apiserver prunes stored fields it no longer
 * knows.
 */
export const CRD_REVISION = 13;
/** The annotation holding CRD_REVISION on each CRD. */
export const CRD_REVISION_ANNOTATION = `${GROUP}/crd-revision`;

const printerColumns = [
  { name: "Phase", type: "string", jsonPath: ".status.phase", description: "Summary of the state" },
  {
    name: "Instances",
    type: "integer",
    jsonPath: ".spec.instances",
    description: "Desired instances",
  },
  {
    name: "Ready",
    type: "integer",
    jsonPath: ".status.readyInstances",
    description: "Ready instances",
  },
  {
    name: "Primary",
    type: "string",
    jsonPath: ".status.currentPrimary",
    description: "Current primary",
  },
  {
    name: "Version",
    type: "string",
    jsonPath: ".spec.version",
    priority: 1,
    description: "PostgreSQL major",
  },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
];

/** A kind's whole schema: apiVersion, kind, metadata, the required spec and the status. */
const rootOf = (
  kindName: string,
  description: string,
  spec: JsonSchema,
  status: JsonSchema,
): JsonSchema => ({
  type: "object",
  description,
  required: ["spec"],
  properties: {
    apiVersion: {
      type: "string",
      description: "APIVersion of this object (pgkeeper.dev/v1alpha1).",
    },
    kind: { type: "string", description: `Kind of this object (${kindName}).` },
    metadata: { type: "object" },
    spec,
    status,
  },
});

const rootSchema: JsonSchema = {
  ...rootOf(
    KIND,
    "A PostgreSQL database cluster managed by pgkeeper: one primary and optional streaming replicas, with failover, backups and live configuration.",
    databaseSpecSchema.json,
    databaseStatusSchema.json,
  ),
  "x-kubernetes-validations": databaseRootRules,
};

interface KindNames {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
}

/** A namespaced CRD of our group with one served version and a status subresource. */
function customResourceDefinition(
  names: KindNames,
  columns: Record<string, unknown>[],
  schema: JsonSchema,
): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${names.plural}.${GROUP}`,
      labels: { "app.kubernetes.io/part-of": "pgkeeper" },
      annotations: { [CRD_REVISION_ANNOTATION]: String(CRD_REVISION) },
    },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { ...names, categories: ["pgkeeper"] },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: columns,
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  };
}

/** The Database CRD. */
export const databaseCrd = (): Record<string, unknown> =>
  customResourceDefinition(
    { kind: KIND, plural: PLURAL, singular: SINGULAR, shortNames: SHORT_NAMES },
    printerColumns,
    rootSchema,
  );

const backupColumns = [
  {
    name: "Database",
    type: "string",
    jsonPath: ".spec.database",
    description: "What is backed up",
  },
  {
    name: "Phase",
    type: "string",
    jsonPath: ".status.phase",
    description: "Pending, Running, Completed or Failed",
  },
  {
    name: "Type",
    type: "string",
    jsonPath: ".status.type",
    description: "full, diff or incr, as taken",
  },
  { name: "Label", type: "string", jsonPath: ".status.label", description: "pgBackRest's label" },
  { name: "Stopped", type: "date", jsonPath: ".status.stoppedAt", description: "Restorable from" },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
];

const backupRootSchema = rootOf(
  BACKUP_KIND,
  "One base backup of a Database into its object store repository, on demand or scheduled. Deleting it leaves the backup in the repository (retention removes backups there).",
  backupSpecSchema.json,
  backupStatusSchema.json,
);

/** The Backup CRD. */
export const backupCrd = (): Record<string, unknown> =>
  customResourceDefinition(
    {
      kind: BACKUP_KIND,
      plural: BACKUP_PLURAL,
      singular: BACKUP_SINGULAR,
      shortNames: BACKUP_SHORT_NAMES,
    },
    backupColumns,
    backupRootSchema,
  );

/** Every CRD of the module, in the order deploy/crd.yaml holds them. */
export const allCrds = (): Record<string, unknown>[] => [databaseCrd(), backupCrd()];

/** Walks a schema and collects every CEL rule (for counts and tests). */
export function celRules(
  schema: JsonSchema = rootSchema,
  path = "",
): { path: string; rule: string }[] {
  const own = (schema["x-kubernetes-validations"] ?? []).map(r => ({
    path: path || ".",
    rule: r.rule,
  }));
  const children = Object.entries(schema.properties ?? {}).flatMap(([k, s]) =>
    celRules(s, `${path}.${k}`),
  );
  const items = schema.items ? celRules(schema.items, `${path}[]`) : [];
  return [...own, ...children, ...items];
}
