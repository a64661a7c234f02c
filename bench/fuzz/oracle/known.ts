/**
 * Which fields exist, for strict field validation (kubectl's default, and this runner's): an
 * unknown field is refused by name, never pruned and ignored. The Database's own fields are
 * written here from the API's documentation; the core/v1 types it embeds (tolerations, affinity)
 * are Kubernetes', read from the OpenAPI the CRD inlines.
 */
import CORE_V1 from "../../../capabilities/database/api/core-v1-schemas.json";
import { isRecord, Judge } from "./judge";

/** A node of the field tree: an object's members, a map's values, or a list's items. */
export type Shape =
  | { kind: "object"; fields: Record<string, Shape> }
  | { kind: "map" }
  | { kind: "list"; items: Shape }
  | { kind: "leaf" };

const leaf: Shape = { kind: "leaf" };
const map: Shape = { kind: "map" };
const object = (fields: Record<string, Shape>): Shape => ({ kind: "object", fields });
const leaves = (...names: string[]): Shape => object(Object.fromEntries(names.map(n => [n, leaf])));

interface OpenApi {
  type?: string;
  properties?: Record<string, OpenApi>;
  items?: OpenApi;
  additionalProperties?: OpenApi;
}

/** The shape of a core/v1 schema: objects with properties, string maps, lists. */
function fromOpenApi(s: OpenApi): Shape {
  if (s.properties) {
    return object(
      Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, fromOpenApi(v)])),
    );
  }
  if (s.additionalProperties) return map;
  if (s.items) return { kind: "list", items: fromOpenApi(s.items) };
  return leaf;
}

const store = object({
  endpoint: leaf,
  bucket: leaf,
  path: leaf,
  region: leaf,
  uriStyle: leaf,
  credentials: leaves("secretName", "accessKeyIdKey", "secretAccessKeyKey"),
  ca: leaves("secretName", "key"),
});

const compute = leaves("cpu", "memory");
const labelSelectorShape = object({
  matchLabels: map,
  matchExpressions: { kind: "list", items: leaves("key", "operator", "values") },
});

export const SPEC: Shape = object({
  version: leaf,
  image: leaf,
  instances: leaf,
  storage: leaves("size", "storageClassName"),
  resources: object({ requests: compute, limits: compute }),
  scheduling: object({
    nodeSelector: map,
    tolerations: { kind: "list", items: fromOpenApi(CORE_V1.Toleration as OpenApi) },
    affinity: fromOpenApi(CORE_V1.Affinity as OpenApi),
    antiAffinity: leaf,
    topologySpread: {
      kind: "list",
      items: leaves("topologyKey", "maxSkew", "whenUnsatisfiable", "minDomains"),
    },
  }),
  postgresql: object({ parameters: map, synchronous: leaves("mode", "number") }),
  failover: leaves("enabled", "delaySeconds", "promoteAfterFenceTimeout"),
  readOnly: leaves("maxLag"),
  backup: object({
    objectStore: store,
    archiveTimeoutSeconds: leaf,
    schedule: leaf,
    retention: leaf,
    retentionDays: leaf,
    volume: leaves("size", "storageClassName"),
  }),
  bootstrap: object({
    restore: leaves("source", "backup"),
    recovery: object({
      source: object({ objectStore: store, repositoryPath: leaf }),
      backupSet: leaf,
      target: leaves("time", "lsn", "xid", "name", "immediate"),
    }),
  }),
  networkPolicy: object({
    enabled: leaf,
    clients: {
      kind: "list",
      items: object({
        podSelector: labelSelectorShape,
        namespaceSelector: labelSelectorShape,
        ipBlock: leaves("cidr", "except"),
      }),
    },
  }),
  monitoring: object({
    enabled: leaf,
    customQueries: { kind: "list", items: leaves("name", "key") },
  }),
  paused: leaf,
});

/** Reports every member of `value` the shape does not know, where both are objects or lists. */
export function unknownFields(j: Judge, value: unknown, shape: Shape, path: string): void {
  if (shape.kind === "object" && isRecord(value)) {
    for (const [k, v] of Object.entries(value)) {
      const member = Object.hasOwn(shape.fields, k) ? shape.fields[k] : undefined;
      if (member === undefined) j.bad(`${path}.${k}`, "unknown field", "crd");
      else unknownFields(j, v, member, `${path}.${k}`);
    }
  } else if (shape.kind === "list" && Array.isArray(value)) {
    value.forEach((v, i) => unknownFields(j, v, shape.items, `${path}[${i}]`));
  }
}
