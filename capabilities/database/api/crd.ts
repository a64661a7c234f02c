/**
 * The CustomResourceDefinition of `Database`, built from the schema source. deploy/crd.yaml is
 * this object serialised by hack/generate-crd.ts; crd.test.ts fails when the two drift.
 */
import { GROUP, KIND, PLURAL, SHORT_NAMES, SINGULAR, VERSION } from "./identity";
import { databaseRootRules, databaseSpecSchema, databaseStatusSchema } from "./database-schema";
import { JsonSchema } from "./schema";

const CRD_NAME = `${PLURAL}.${GROUP}`;

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

const rootSchema: JsonSchema = {
  type: "object",
  description:
    "A PostgreSQL database cluster managed by pgkeeper: one primary and optional streaming replicas, with failover, backups and live configuration.",
  required: ["spec"],
  properties: {
    apiVersion: {
      type: "string",
      description: "APIVersion of this object (pgkeeper.dev/v1alpha1).",
    },
    kind: { type: "string", description: "Kind of this object (Database)." },
    metadata: { type: "object" },
    spec: databaseSpecSchema.json,
    status: databaseStatusSchema.json,
  },
  "x-kubernetes-validations": databaseRootRules,
};

/** Builds the CRD manifest. */
export function databaseCrd(): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: CRD_NAME, labels: { "app.kubernetes.io/part-of": "pgkeeper" } },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: {
        kind: KIND,
        plural: PLURAL,
        singular: SINGULAR,
        shortNames: SHORT_NAMES,
        categories: ["pgkeeper"],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: printerColumns,
          schema: { openAPIV3Schema: rootSchema },
        },
      ],
    },
  };
}

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
