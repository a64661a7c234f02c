/**
 * core/v1 schemas from the apiserver's published OpenAPI v3 (/openapi/v3/api/v1), made fit for a
 * CRD: references inlined, `default`s dropped (the CRD would apply them), descriptions cut to
 * their first sentence, and bounds added to every list, map and string, so the apiserver checks
 * the types we pass through structurally and no value nests or grows without limit. Pure: shared
 * by hack/core-schemas/fetch.ts and the integration tier's drift test.
 */
type Schema = Record<string, unknown>;

const MAX_ITEMS = 64;
const MAX_PROPERTIES = 64;
const MAX_STRING = 1024;

/** The Database passes these through to its pods. */
export const CORE_TYPES = ["Toleration", "Affinity"] as const;

const firstSentence = (text: string): string => {
  const plain = text.split("\n\nPossible enum values")[0].replace(/\s+/g, " ").trim();
  const end = plain.search(/\.(\s|$)/);
  return end < 0 ? plain : plain.slice(0, end + 1);
};

/** The schema a `$ref` (or an `allOf` of one) points to, inlined; undefined for no reference. */
function referenced(components: Record<string, Schema>, schema: Schema, seen: string[]) {
  const ref = (schema.$ref ?? (schema.allOf as Schema[] | undefined)?.[0]?.$ref) as
    | string
    | undefined;
  if (!ref) return undefined;
  const name = ref.replace("#/components/schemas/", "");
  if (seen.includes(name)) throw new Error(`recursive schema ${[...seen, name].join(" > ")}`);
  const target = inline(components, components[name], [...seen, name]);
  return schema.description
    ? { ...target, description: firstSentence(String(schema.description)) }
    : target;
}

/** The plain keywords kept, with a bound on every string that is not an enum. */
function scalarPart(schema: Schema): Schema {
  const out: Schema = {};
  if (schema.description) out.description = firstSentence(String(schema.description));
  for (const key of ["type", "format", "enum", "required"]) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  if (schema.type === "string" && !schema.enum) out.maxLength = MAX_STRING;
  return out;
}

function inline(components: Record<string, Schema>, schema: Schema, seen: string[]): Schema {
  const target = referenced(components, schema, seen);
  if (target) return target;
  const out = scalarPart(schema);
  if (schema.items) {
    const items = inline(components, schema.items as Schema, seen);
    // kubectl explain shows each element too: a plain element says what its list is.
    out.items =
      items.description || !out.description ? items : { ...items, description: out.description };
    out.maxItems = MAX_ITEMS;
  }
  if (schema.properties) {
    const properties = Object.entries(schema.properties as Record<string, Schema>);
    out.properties = Object.fromEntries(
      properties.map(([k, v]) => [k, inline(components, v, seen)]),
    );
  }
  if (schema.additionalProperties) {
    out.additionalProperties = inline(components, schema.additionalProperties as Schema, seen);
    out.maxProperties = MAX_PROPERTIES;
  }
  return out;
}

/** `{ Toleration, Affinity }` inlined from an /openapi/v3/api/v1 document. */
export function coreSchemas(openapi: {
  components: { schemas: Record<string, Schema> };
}): Record<(typeof CORE_TYPES)[number], Schema> {
  const components = openapi.components.schemas;
  return Object.fromEntries(
    CORE_TYPES.map(t => [t, inline(components, components[`io.k8s.api.core.v1.${t}`], [])]),
  ) as Record<(typeof CORE_TYPES)[number], Schema>;
}
