/**
 * Event filtering: which watch events are worth a reconcile. A controller that reconciles on every
 * event reconciles on the echo of its own writes (a status patch comes back as MODIFIED), which
 * Pepr 1.1.4 does not filter. Two rules, both pure:
 * - an event carrying the resourceVersion the cache already holds is the echo of a write whose
 *   response we stored (see ObjectCache.upsert: `unchanged`) — never a reason to reconcile;
 * - a change confined to `status` (and bookkeeping metadata) is not a reason either, except for
 *   Pods, whose status (readiness) is exactly what reconcile observes.
 */
import { omit } from "ramda";
import { jsonEqual } from "../lib/json-equal";
import { KubeObject } from "../cluster/cluster";
import { UpsertOutcome } from "./object-cache";

/**
 * Kinds whose status reconcile reads: a status-only change there matters (a Pod's readiness, a
 * backup Job's end: the job controller marks it succeeded after its pod completed, in a
 * status-only update that must still wake the Backup's Database).
 */
const STATUS_MATTERS = new Set(["Pod", "Job"]);

/** Parts the apiserver or controllers change without changing what we manage. */
const withoutBookkeeping = (obj: KubeObject): unknown => ({
  ...omit(["status"], obj),
  metadata: omit(
    ["resourceVersion", "managedFields"],
    (obj.metadata ?? {}) as Record<string, unknown>,
  ),
});

/** True when `next` differs from `previous` in something other than status and bookkeeping. */
export function isMeaningfulChange(previous: KubeObject | undefined, next: KubeObject): boolean {
  if (!previous) return true;
  if (STATUS_MATTERS.has(next.kind ?? "")) return true;
  return !jsonEqual(withoutBookkeeping(previous), withoutBookkeeping(next));
}

/** Whether an ADDED/MODIFIED event, stored with `outcome`, should trigger a reconcile. */
export function warrantsReconcile(
  outcome: UpsertOutcome,
  previous: KubeObject | undefined,
  next: KubeObject,
): boolean {
  if (outcome === "stale" || outcome === "unchanged") return false;
  return isMeaningfulChange(previous, next);
}
