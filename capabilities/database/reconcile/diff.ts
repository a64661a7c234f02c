/**
 * Decides whether a child needs a write. Two independent signals, both cheap:
 * - the hash of what we last applied (annotation) differs from the desired object: our intent
 *   changed, including fields we stopped setting (a subset check alone cannot see removals);
 * - a field we set differs in the live object: someone edited it (drift).
 * Fields others add (labels, server defaults) are ignored, so a converged child costs no write.
 */
import { contentDigest } from "../lib/content-hash";
import { quantityValue } from "../lib/quantity";
import { KubeObject } from "../cluster/cluster";

export const ANNOTATION_APPLIED_HASH = "pgkeeper.dev/applied-hash";

/** Stable content hash of an object (key order does not matter; lib/content-hash.ts). */
export const contentHash = (value: unknown): string => contentDigest(value).slice(0, 16);

/**
 * The desired object stamped with the hash of its own content, or with `hash` when it is already
 * known (the same inputs built the same object before: reconcile/converged-children.ts).
 */
export function withAppliedHash(desired: KubeObject, hash = contentHash(desired)): KubeObject {
  return {
    ...desired,
    metadata: {
      ...desired.metadata,
      annotations: { ...desired.metadata?.annotations, [ANNOTATION_APPLIED_HASH]: hash },
    },
  };
}

/** Quantities are normalised by the apiserver ("0.5" → "500m", "1024Mi" → "1Gi"). */
const sameQuantity = (a: unknown, b: unknown): boolean => {
  const x = quantityValue(a);
  return x !== undefined && x === quantityValue(b);
};

/** True when every field of `desired` has the same value in `live` (extra fields in live are fine). */
export function isSubset(desired: unknown, live: unknown): boolean {
  if (desired === live) return true;
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) &&
      desired.length === live.length &&
      desired.every((d, i) => isSubset(d, live[i]))
    );
  }
  if (desired && typeof desired === "object") {
    if (!live || typeof live !== "object" || Array.isArray(live)) return false;
    const liveRecord = live as Record<string, unknown>;
    return Object.entries(desired).every(([k, v]) => v === undefined || isSubset(v, liveRecord[k]));
  }
  return sameQuantity(desired, live);
}

export type ChildChange = "create" | "update" | "drift" | "none";

/** What must happen to make `live` match `stamped` (a desired object with its applied hash). */
export function childChange(stamped: KubeObject, live: KubeObject | undefined): ChildChange {
  if (!live) return "create";
  const want = stamped.metadata?.annotations?.[ANNOTATION_APPLIED_HASH];
  if (live.metadata?.annotations?.[ANNOTATION_APPLIED_HASH] !== want) return "update";
  return isSubset(stamped, live) ? "none" : "drift";
}
