/**
 * Reads PostgreSQL's GUC tables (ConfigureNamesBool/Int/Real/String/Enum in guc.c up to 15,
 * guc_tables.c from 16) into catalog entries, the way pg_settings shows them: the C source
 * must already be preprocessed (c-preprocess.ts) for the build in question.
 */
import type { ParameterEntry } from "../../capabilities/database/api/parameter-catalog/types";
import { evaluate } from "./c-expr";

const CONTEXTS: Record<string, ParameterEntry["context"]> = {
  PGC_INTERNAL: "internal",
  PGC_POSTMASTER: "postmaster",
  PGC_SIGHUP: "sighup",
  PGC_SU_BACKEND: "superuser-backend",
  PGC_BACKEND: "backend",
  PGC_SUSET: "superuser",
  PGC_USERSET: "user",
};

/** GUC_UNIT_* as pg_settings.unit spells them (XBLOCKS are WAL blocks, 8kB here too). */
const UNITS: Record<string, string> = {
  GUC_UNIT_KB: "kB",
  GUC_UNIT_BLOCKS: "8kB",
  GUC_UNIT_XBLOCKS: "8kB",
  GUC_UNIT_MB: "MB",
  GUC_UNIT_BYTE: "B",
  GUC_UNIT_MS: "ms",
  GUC_UNIT_S: "s",
  GUC_UNIT_MIN: "min",
};

const TABLES = {
  Bool: "bool",
  Int: "integer",
  Real: "real",
  String: "string",
  Enum: "enum",
} as const;

/** Splits on `separator` outside parentheses, braces and literals. */
export function splitTopLevel(text: string, separator = ","): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      i = j;
    } else if (c === "(" || c === "{") depth++;
    else if (c === ")" || c === "}") depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** The text inside the braces that open at or after `from`. */
function braced(text: string, from: number): string {
  const open = text.indexOf("{", from);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      i = j;
    } else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error("unbalanced braces");
}

const unbrace = (text: string) => text.replace(/^\{|\}$/g, "").trim();

/** An enum option: its name, and whether it is hidden (accepted, but not in pg_settings). */
export type EnumOption = [name: string, hidden: boolean];

/** Every `config_enum_entry NAME[] = {…}` in a file, in order, up to the NULL that ends it. */
export function enumOptionArrays(source: string): Map<string, EnumOption[]> {
  const arrays = new Map<string, EnumOption[]>();
  for (const match of source.matchAll(/config_enum_entry\s+(\w+)\s*\[\s*\]\s*=/g)) {
    const options = splitTopLevel(braced(source, match.index ?? 0))
      .filter(option => option.startsWith("{"))
      .map(option => splitTopLevel(unbrace(option)))
      .filter(([name]) => name !== "NULL")
      .map(([name, , hidden]): EnumOption => [JSON.parse(name) as string, hidden === "true"]);
    arrays.set(match[1], options);
  }
  return arrays;
}

/** The options an enum's table field (`options` or `options + 1`) gives pg_settings. */
function enumValues(field: string, arrays: Map<string, EnumOption[]>): string[] | undefined {
  const [array, skip] = field.split("+").map(part => part.trim());
  return arrays
    .get(array)
    ?.slice(Number(skip ?? 0))
    .filter(([, hidden]) => !hidden)
    .map(([name]) => name);
}

/** The entries of all five tables, hidden ones (GUC_NO_SHOW_ALL, not in pg_settings) left out. */
export function gucEntries(
  source: string,
  enumArrays: Map<string, EnumOption[]>,
  macros: (name: string) => string | number | undefined,
): Record<string, ParameterEntry> {
  const entries: Record<string, ParameterEntry> = {};
  for (const [table, type] of Object.entries(TABLES)) {
    const start = source.search(new RegExp(`ConfigureNames${table}\\s*\\[\\s*\\]\\s*=`));
    if (start < 0) throw new Error(`no ConfigureNames${table}`);
    for (const row of splitTopLevel(braced(source, start))) {
      if (!row.startsWith("{")) continue;
      const fields = splitTopLevel(unbrace(row));
      const generic = splitTopLevel(unbrace(fields[0]));
      if (generic[0] === "NULL") continue;
      const name = JSON.parse(generic[0]) as string;
      const flags = (generic[5] ?? "0").split("|").map(flag => flag.trim());
      if (flags.includes("GUC_NO_SHOW_ALL")) continue;
      const context = CONTEXTS[generic[1]];
      if (!context) throw new Error(`${name}: unknown context ${generic[1]}`);
      const unit = flags.map(flag => UNITS[flag]).find(Boolean);
      const entry: ParameterEntry = { type, context, ...(unit ? { unit } : {}) };
      if (type === "integer" || type === "real") {
        // pg_settings prints a real's bounds with %g: six significant digits.
        const shown = (expression: string) => {
          const value = evaluate(expression, macros);
          return type === "real" ? Number(value.toPrecision(6)) : value;
        };
        entry.min = shown(fields[3]);
        entry.max = shown(fields[4]);
      }
      if (type === "enum") {
        const values = enumValues(fields[3], enumArrays);
        if (!values) throw new Error(`${name}: no options array ${fields[3]}`);
        entry.values = values;
      }
      entries[name] = entry;
    }
  }
  return entries;
}
