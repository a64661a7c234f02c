/**
 * What the catalog holds of pg_settings, and how a row becomes an entry: shared by the generator
 * and the drift test, so both read a server the same way.
 */
import type {
  ParameterCatalog,
  ParameterEntry,
} from "../../capabilities/database/api/parameter-catalog/types";

export const CATALOG_QUERY = `SELECT json_agg(json_build_object(
  'name', name, 'vartype', vartype, 'context', context, 'unit', unit,
  'min_val', min_val, 'max_val', max_val, 'enumvals', enumvals) ORDER BY name) FROM pg_settings`;

export interface SettingsRow {
  name: string;
  vartype: ParameterEntry["type"];
  context: ParameterEntry["context"];
  unit: string | null;
  min_val: string | null;
  max_val: string | null;
  enumvals: string[] | null;
}

export function catalogFromRows(major: string, rows: SettingsRow[]): ParameterCatalog {
  const parameters: Record<string, ParameterEntry> = {};
  for (const row of rows) {
    const numeric = row.vartype === "integer" || row.vartype === "real";
    parameters[row.name] = {
      type: row.vartype,
      context: row.context,
      ...(row.unit ? { unit: row.unit } : {}),
      ...(numeric && row.min_val !== null ? { min: Number(row.min_val) } : {}),
      ...(numeric && row.max_val !== null ? { max: Number(row.max_val) } : {}),
      ...(row.enumvals ? { values: row.enumvals } : {}),
    };
  }
  return { major, source: `pg_settings of PostgreSQL ${major}`, parameters };
}
