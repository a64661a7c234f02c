/**
 * The PostgreSQL parameter catalogs, one per supported major (ADR 0014), checked in:
 * - 15, 17 and 18 from the pg_settings of the server of pgkeeper's instance image of that major
 *   (hack/parameter-catalog/generate.ts; test/postgres/parameter-catalog.test.ts checks each
 *   against its image's running server);
 * - 14 and 16, which no Debian suite here serves, from PostgreSQL's own GUC tables at a release
 *   (hack/parameter-catalog/from-source.ts), a reader that gave exactly pg15.json and pg18.json
 *   from the 15.18 and 18.6 sources (`from-source.ts --check-against 15 18`; pg15.json has since
 *   moved to 15.20, the image's minor, which added two parameters).
 * Each catalog's `source` says where it came from.
 */
import pg14 from "./pg14.json";
import pg15 from "./pg15.json";
import pg16 from "./pg16.json";
import pg17 from "./pg17.json";
import pg18 from "./pg18.json";
import type { ParameterCatalog, ParameterEntry } from "./types";

export type { ParameterCatalog, ParameterEntry } from "./types";

const CATALOGS: Record<string, ParameterCatalog> = {
  "14": pg14 as ParameterCatalog,
  "15": pg15 as ParameterCatalog,
  "16": pg16 as ParameterCatalog,
  "17": pg17 as ParameterCatalog,
  "18": pg18 as ParameterCatalog,
};

/** Entries by lower-case name (parameter names are case-insensitive), built once per major. */
const byLowerName = new Map<string, Map<string, [string, ParameterEntry]>>();

/** The majors with a catalog, oldest first. */
export const catalogMajors = (): string[] =>
  Object.keys(CATALOGS).sort((a, b) => Number(a) - Number(b));

/** Whether a major has a catalog; every supported major does, an unknown one does not. */
export const hasCatalog = (major: string): boolean => Object.hasOwn(CATALOGS, major);

/** The entry of `name` (any case) with its catalog spelling, or undefined when unknown. */
export function parameterEntry(
  major: string,
  name: string,
): { name: string; entry: ParameterEntry } | undefined {
  if (!hasCatalog(major)) return undefined;
  const catalog = CATALOGS[major];
  let index = byLowerName.get(major);
  if (!index) {
    index = new Map(
      Object.entries(catalog.parameters).map(([n, e]) => [n.toLowerCase(), [n, e]] as const),
    );
    byLowerName.set(major, index);
  }
  const found = index.get(name.toLowerCase());
  return found ? { name: found[0], entry: found[1] } : undefined;
}

/** Every parameter name of a major's catalog. */
export const parameterNames = (major: string): string[] =>
  hasCatalog(major) ? Object.keys(CATALOGS[major].parameters) : [];
