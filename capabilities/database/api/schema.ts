/**
 * A tiny typed builder for OpenAPI v3 schemas. The Database API is written once with it: the
 * builder returns the JSON schema the CRD needs, and `Infer<>` derives the TypeScript type from
 * the same value, so the CRD and the code cannot disagree.
 */

/** One CEL rule (`x-kubernetes-validations`). */
export interface CelRule {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?:
    | "FieldValueInvalid"
    | "FieldValueForbidden"
    | "FieldValueRequired"
    | "FieldValueDuplicate";
}

/** The subset of OpenAPI v3 (JSONSchemaProps) we emit into the CRD. */
export interface JsonSchema {
  type?: "string" | "integer" | "number" | "boolean" | "object" | "array";
  description?: string;
  format?: string;
  enum?: readonly (string | number)[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema;
  "x-kubernetes-validations"?: CelRule[];
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
}

/** A schema that also carries, at the type level only, the TypeScript type it describes. */
export interface Schema<T> {
  readonly json: JsonSchema;
  /** Phantom field: never set at runtime. */
  readonly __type?: T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

type Options = Omit<JsonSchema, "type" | "properties" | "required" | "items" | "enum">;

const make = <T>(json: JsonSchema): Schema<T> => ({ json });

export const string = (description: string, opts: Options = {}): Schema<string> =>
  make({ type: "string", description, ...opts });

export const stringEnum = <const V extends string>(
  values: readonly V[],
  description: string,
  opts: Options = {},
): Schema<V> => make({ type: "string", description, enum: values, ...opts });

export const integer = (description: string, opts: Options = {}): Schema<number> =>
  make({ type: "integer", description, ...opts });

export const boolean = (description: string, opts: Options = {}): Schema<boolean> =>
  make({ type: "boolean", description, ...opts });

/** A Kubernetes resource quantity ("10Gi", "500m"); the apiserver keeps it as int-or-string. */
export const quantity = (description: string, opts: Options = {}): Schema<string> =>
  make({
    description,
    "x-kubernetes-int-or-string": true,
    pattern:
      "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
    ...opts,
  });

export const array = <T>(items: Schema<T>, description: string, opts: Options = {}): Schema<T[]> =>
  make({ type: "array", description, items: items.json, ...opts });

export const stringMap = (
  description: string,
  opts: Options = {},
  values: Options = {},
): Schema<Record<string, string>> =>
  make({
    type: "object",
    description,
    additionalProperties: { type: "string", ...values },
    ...opts,
  });

/** A Kubernetes type's own schema (api/core-v1-schemas.json), checked by the apiserver. */
export const coreType = <T>(json: object, description: string, opts: Options = {}): Schema<T> =>
  make({ ...(json as JsonSchema), description, ...opts });

/** An object whose content Kubernetes defines (e.g. affinity): kept as given, not pruned. */
export const opaque = <T>(description: string, opts: Options = {}): Schema<T> =>
  make({ type: "object", description, "x-kubernetes-preserve-unknown-fields": true, ...opts });

type Props = Record<string, Schema<unknown>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ObjectOf<P extends Props, R extends keyof P> = Simplify<
  { [K in R]: Infer<P[K]> } & { [K in Exclude<keyof P, R>]?: Infer<P[K]> }
>;

export const object = <P extends Props, const R extends keyof P & string = never>(
  properties: P,
  description: string,
  opts: Options & { required?: readonly R[] } = {},
): Schema<ObjectOf<P, R>> => {
  const { required, ...rest } = opts;
  const props: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties)) props[name] = schema.json;
  return make({
    type: "object",
    description,
    properties: props,
    ...(required && required.length > 0 ? { required: [...required] } : {}),
    ...rest,
  });
};
