/**
 * What YAML makes of values users write as strings, put back the way they meant them (pure), as
 * core Kubernetes does for its own types:
 * - `mode: off` is YAML 1.1's boolean false: synchronous.mode "off";
 * - `cpu: 0.5` and `memory: 1073741824` are numbers: quantities are strings here;
 * - `max_connections: 200` and `jit: off` in postgresql.parameters: the strings PostgreSQL reads
 *   (booleans as on/off).
 * Anything else is left for validation to refuse with the field named.
 */
import { isRecord } from "./rules/util";

type Patch = Record<string, unknown>;

const numberText = (value: unknown): string | undefined =>
  typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;

/** The quantities of a requests or limits map given as numbers, as strings. */
function quantities(values: unknown): Patch | undefined {
  if (!isRecord(values)) return undefined;
  const patch: Patch = {};
  for (const [name, value] of Object.entries(values)) {
    const text = numberText(value);
    if (text !== undefined) patch[name] = text;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

function parameters(values: unknown): Patch | undefined {
  if (!isRecord(values)) return undefined;
  const patch: Patch = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === "boolean") patch[name] = value ? "on" : "off";
    else if (numberText(value) !== undefined) patch[name] = numberText(value);
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** Drops undefined members, and the object itself when nothing is left. */
function compact(patch: Record<string, unknown>): Patch | undefined {
  const kept = Object.entries(patch).filter(([, v]) => v !== undefined);
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** The merge patch that turns YAML's readings back into the strings meant, or undefined. */
export function yamlHabitsPatch(spec: unknown): Patch | undefined {
  if (!isRecord(spec)) return undefined;
  const resources = isRecord(spec.resources) ? spec.resources : {};
  const postgresql = isRecord(spec.postgresql) ? spec.postgresql : {};
  const synchronous = isRecord(postgresql.synchronous) ? postgresql.synchronous : {};
  const storage = isRecord(spec.storage) ? spec.storage : {};
  const readOnly = isRecord(spec.readOnly) ? spec.readOnly : {};
  return compact({
    resources: compact({
      requests: quantities(resources.requests),
      limits: quantities(resources.limits),
    }),
    storage: compact({ size: numberText(storage.size) }),
    readOnly: compact({ maxLag: numberText(readOnly.maxLag) }),
    postgresql: compact({
      parameters: parameters(postgresql.parameters),
      synchronous: compact({ mode: synchronous.mode === false ? "off" : undefined }),
    }),
  });
}
