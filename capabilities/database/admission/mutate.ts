/** The Pepr Mutate action for Databases: a thin adapter over `defaultsPatch`. */
import type { PeprMutateRequest } from "pepr";
import type { Database } from "../api/database";
import { OperatorConfig, operatorConfig } from "../lib/config";
import { defaultsPatch } from "./defaults";
import { mergeDeepRight } from "ramda";
import { yamlHabitsPatch } from "./yaml-habits";

type MergePatch = Parameters<PeprMutateRequest<Database>["Merge"]>[0];

/** YAML's readings put back, then the defaults of the spec that makes. */
function specPatch(spec: unknown, config: OperatorConfig, oldSpec: unknown): object | undefined {
  const habits = yamlHabitsPatch(spec);
  if (!habits) return defaultsPatch(spec, config, oldSpec);
  const defaults = defaultsPatch(mergeDeepRight(spec as object, habits), config, oldSpec);
  return mergeDeepRight(habits, defaults ?? {});
}

/**
 * Puts YAML's readings back (`mode: off` read as false, `cpu: 0.5` as a number) and fills
 * defaults on CREATE and UPDATE; leaves deletes, status writes and dying objects alone.
 */
export function applyDefaults(req: PeprMutateRequest<Database>, config: OperatorConfig): void {
  try {
    const { operation, subResource } = req.Request;
    if (operation !== "CREATE" && operation !== "UPDATE") return;
    if (subResource || req.Raw.metadata?.deletionTimestamp) return;
    const old = operation === "UPDATE" ? (req.OldResource as Database | undefined) : undefined;
    const patch = specPatch(req.Raw.spec, config, old?.spec);
    if (patch) req.Merge({ spec: patch } as MergePatch);
  } catch {
    // Never fail admission over defaults: reconcile resolves the same defaults itself, and the
    // validating webhook reports a malformed spec with a proper message.
  }
}

/** Pepr Mutate action. Takes only the request because Pepr passes a logger as second argument. */
export function mutateDatabase(req: PeprMutateRequest<Database>): void {
  applyDefaults(req, operatorConfig());
}
