/**
 * The user's queries for the metrics sidecar (spec.monitoring.customQueries): ConfigMap keys in
 * postgres_exporter's queries format, which CloudNativePG reads too. Each source is checked
 * whole and taken whole or not at all: one bad file must never cost pgkeeper's metrics or
 * another file's, which a merged file that the exporter cannot parse would.
 */
// client-node's YAML loader (js-yaml underneath): the controller image has it, so the module's
// bundle does not carry a second parser (pepr keeps @kubernetes/client-node external).
import { loadYaml } from "@kubernetes/client-node";
import type { ConditionInput } from "../api/conditions";

/** Where a source comes from, as spec.monitoring.customQueries names it. */
export interface QueriesRef {
  name: string;
  key: string;
}

/** A source as read: its text, or undefined when the ConfigMap or its key is missing. */
export interface QueriesSource {
  ref: QueriesRef;
  text: string | undefined;
}

export interface CustomQueries {
  /** The accepted queries, by name, to append to pgkeeper's. */
  queries: Record<string, unknown>;
  /** One line per source left out: `configmap/key: why`. */
  problems: string[];
  /** How many queries each accepted source gave. */
  loaded: { ref: QueriesRef; count: number }[];
}

/** What the exporter takes as a column's usage. */
const USAGES = new Set([
  "LABEL",
  "COUNTER",
  "GAUGE",
  "MAPPEDMETRIC",
  "DURATION",
  "HISTOGRAM",
  "DISCARD",
]);
/** A metric family's prefix: the query's name, then each column's. */
const METRIC_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const describeQueriesRef = (ref: QueriesRef): string => `${ref.name}/${ref.key}`;

/** Why one column entry (`- name: {usage, description}`) is not one, if it is not. */
function columnProblem(column: unknown): string | undefined {
  if (!isRecord(column) || Object.keys(column).length !== 1)
    return "each metrics entry is a map of one column name to {usage, description}";
  const [name, spec] = Object.entries(column)[0];
  if (!METRIC_NAME.test(name)) return `column "${name}" is not a metric name`;
  const usage = isRecord(spec) ? spec.usage : undefined;
  if (typeof usage !== "string" || !USAGES.has(usage))
    return `column "${name}" has usage ${JSON.stringify(usage)}; one of ${[...USAGES].join(", ")}`;
  return undefined;
}

/** Why one query entry is not one, if it is not. */
function queryProblem(name: string, entry: unknown): string | undefined {
  if (!METRIC_NAME.test(name)) return `"${name}" is not a metric name`;
  if (!isRecord(entry)) return `"${name}" is not a map with query and metrics`;
  if (typeof entry.query !== "string" || entry.query.trim() === "") return `"${name}" has no query`;
  if (!Array.isArray(entry.metrics) || entry.metrics.length === 0)
    return `"${name}" has no metrics`;
  const column = entry.metrics.map(columnProblem).find(p => p !== undefined);
  return column && `"${name}": ${column}`;
}

/** The queries of one source, or why it is left out. */
function parseSource(
  source: QueriesSource,
  taken: ReadonlySet<string>,
): { queries: Record<string, unknown> } | { problem: string } {
  if (source.text === undefined) return { problem: "not found (the ConfigMap or its key)" };
  if (source.text.trim() === "") return { problem: "holds no queries (a map of query names)" };
  let parsed: unknown;
  try {
    parsed = loadYaml(source.text);
  } catch (e) {
    return { problem: `not YAML: ${(e as Error).message.split("\n")[0]}` };
  }
  if (!isRecord(parsed) || Object.keys(parsed).length === 0)
    return { problem: "holds no queries (a map of query names)" };
  for (const [name, entry] of Object.entries(parsed)) {
    const problem = queryProblem(name, entry);
    if (problem) return { problem };
    if (taken.has(name)) return { problem: `"${name}" is already defined (pgkeeper's or above)` };
  }
  return { queries: parsed };
}

/**
 * The sources' queries, in order, each source whole or left out with its reason. `reserved`:
 * pgkeeper's own query names, which no source may take.
 */
export function customQueries(
  sources: readonly QueriesSource[],
  reserved: readonly string[],
): CustomQueries {
  const result: CustomQueries = { queries: {}, problems: [], loaded: [] };
  const taken = new Set(reserved);
  for (const source of sources) {
    const parsed = parseSource(source, taken);
    if ("problem" in parsed) {
      result.problems.push(`${describeQueriesRef(source.ref)}: ${parsed.problem}`);
      continue;
    }
    Object.assign(result.queries, parsed.queries);
    for (const name of Object.keys(parsed.queries)) taken.add(name);
    result.loaded.push({ ref: source.ref, count: Object.keys(parsed.queries).length });
  }
  return result;
}

/** The CustomQueries condition: True when every source loaded, else False naming each problem. */
export function customQueriesCondition(result: CustomQueries): ConditionInput {
  const loaded = result.loaded.map(l => `${l.count} from ${describeQueriesRef(l.ref)}`).join(", ");
  if (result.problems.length === 0)
    return {
      type: "CustomQueries",
      status: "True",
      reason: "Loaded",
      message: `Queries loaded: ${loaded}`,
    };
  return {
    type: "CustomQueries",
    status: "False",
    reason: "QueriesLeftOut",
    message: `Left out, pgkeeper's metrics and the other queries still served: ${result.problems.join("; ")}${loaded ? `. Loaded: ${loaded}` : ""}`,
  };
}
