/** One parameter as pg_settings describes it (hack/parameter-catalog/generate.ts). */
export interface ParameterEntry {
  type: "bool" | "enum" | "integer" | "real" | "string";
  /** When a change takes effect; `internal` parameters cannot be set at all. */
  context:
    | "internal"
    | "postmaster"
    | "sighup"
    | "superuser-backend"
    | "backend"
    | "superuser"
    | "user";
  /** The unit of a plain number ("8kB", "ms", …). */
  unit?: string;
  min?: number;
  max?: number;
  /** An enum's documented values (PostgreSQL also accepts a few hidden synonyms). */
  values?: string[];
}

export interface ParameterCatalog {
  major: string;
  source: string;
  parameters: Record<string, ParameterEntry>;
}
