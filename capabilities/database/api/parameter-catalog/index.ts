/**
 * The PostgreSQL parameter catalogs, generated from each major's pg_settings by
 * hack/parameter-catalog/generate.ts (checked in; test/postgres/parameter-catalog.test.ts checks
 * pg15.json against a real server). Majors without a server here (14, 16, 18) have none yet:
 * their parameters get the name rules only.
 */
import pg15 from "./pg15.json";
import pg17 from "./pg17.json";
import type { ParameterCatalog, ParameterEntry } from "./types";

export type { ParameterCatalog, ParameterEntry } from "./types";

const CATALOGS: Record<string, ParameterCatalog> = {
  "15": pg15 as ParameterCatalog,
  "17": pg17 as ParameterCatalog,
};

/** Entries by lower-case name (parameter names are case-insensitive), built once per major. */
const byLowerName = new Map<string, Map<string, [string, ParameterEntry]>>();

export const hasCatalog = (major: string): boolean => major in CATALOGS;

/** The entry of `name` (any case) with its catalog spelling, or undefined when unknown. */
export function parameterEntry(
  major: string,
  name: string,
): { name: string; entry: ParameterEntry } | undefined {
  const catalog = CATALOGS[major];
  if (!catalog) return undefined;
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
  Object.keys(CATALOGS[major]?.parameters ?? {});
