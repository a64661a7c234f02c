/**
 * What the oracle knows of each major's parameters: the checked-in catalogs (data only, none of
 * the admission code): 15, 17 and 18 from those servers' pg_settings, 14 and 16 from
 * PostgreSQL's own GUC tables at 14.13 and 16.2 (each catalog's `source` says which).
 */
import pg14 from "../../../capabilities/database/api/parameter-catalog/pg14.json";
import pg15 from "../../../capabilities/database/api/parameter-catalog/pg15.json";
import pg16 from "../../../capabilities/database/api/parameter-catalog/pg16.json";
import pg17 from "../../../capabilities/database/api/parameter-catalog/pg17.json";
import pg18 from "../../../capabilities/database/api/parameter-catalog/pg18.json";
import type {
  ParameterCatalog,
  ParameterEntry,
} from "../../../capabilities/database/api/parameter-catalog/types";

type Entries = Map<string, ParameterEntry>;

/** Parameter names are case-insensitive. */
const lower = (c: ParameterCatalog): Entries =>
  new Map(Object.entries(c.parameters).map(([n, e]) => [n.toLowerCase(), e]));

const CATALOGS: Record<string, Entries> = {
  "14": lower(pg14 as ParameterCatalog),
  "15": lower(pg15 as ParameterCatalog),
  "16": lower(pg16 as ParameterCatalog),
  "17": lower(pg17 as ParameterCatalog),
  "18": lower(pg18 as ParameterCatalog),
};

export type Lookup =
  | { kind: "known"; entry: ParameterEntry }
  | { kind: "unknown-name" }
  | { kind: "undecidable"; why: string };

/** The entry of `name` (any case) for `major`. */
export function lookup(major: string, name: string): Lookup {
  const catalog = CATALOGS[major];
  if (!catalog) return { kind: "undecidable", why: `no catalog for major ${major}` };
  const entry = catalog.get(name.toLowerCase());
  return entry ? { kind: "known", entry } : { kind: "unknown-name" };
}
