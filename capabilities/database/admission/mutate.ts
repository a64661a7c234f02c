/** The Pepr Mutate action for Databases: a thin adapter over `defaultsPatch`. */
import type { PeprMutateRequest } from "pepr";
import type { Database } from "../api/database";
import { OperatorConfig, operatorConfig } from "../lib/config";
import { defaultsPatch } from "./defaults";
import { mergeDeepRight } from "ramda";
import { yamlHabitsPatch } from "./yaml-habits";

type MergePatch = Parameters<PeprMutateRequest<Database>["Merge"]>[0];

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
    const habits = yamlHabitsPatch(req.Raw.spec);
    const spec = habits ? mergeDeepRight(req.Raw.spec ?? {}, habits) : req.Raw.spec;
    const defaults = defaultsPatch(spec, config, old?.spec);
    const patch = habits ? mergeDeepRight(habits, defaults ?? {}) : defaults;
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
