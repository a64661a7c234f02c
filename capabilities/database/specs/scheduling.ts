/**
 * Where instance pods may run: the user's nodeSelector, tolerations and affinity, plus the pod
 * anti-affinity that spreads instances over nodes (losing one node must not take the primary and
 * its replicas down together).
 */
import type {
  V1Affinity,
  V1PodAffinityTerm,
  V1Toleration,
  V1TopologySpreadConstraint,
} from "@kubernetes/client-node";
import type { ResolvedSpec } from "../api/defaults";
import { selectorLabels } from "../api/names";

const HOSTNAME_TOPOLOGY = "kubernetes.io/hostname";
const PREFERRED_WEIGHT = 100;

type Scheduling = ResolvedSpec["scheduling"];

/** Pods of the same Database on the same node. */
export const spreadTerm = (db: string): V1PodAffinityTerm => ({
  labelSelector: { matchLabels: selectorLabels(db) },
  topologyKey: HOSTNAME_TOPOLOGY,
});

/**
 * The user's affinity with our anti-affinity term appended (theirs are kept, never replaced).
 * `undefined` when there is nothing to say.
 */
export function affinity(db: string, scheduling: Scheduling): V1Affinity | undefined {
  // spec.scheduling.affinity has core/v1 Affinity's own schema in the CRD (its types); the
  // rules between its fields are checked when the StatefulSet is applied.
  const user = (scheduling.affinity ?? {}) as V1Affinity;
  const anti = user.podAntiAffinity ?? {};
  let merged: V1Affinity = user;
  if (scheduling.antiAffinity === "preferred") {
    const preferred = anti.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    merged = {
      ...user,
      podAntiAffinity: {
        ...anti,
        preferredDuringSchedulingIgnoredDuringExecution: [
          ...preferred,
          { weight: PREFERRED_WEIGHT, podAffinityTerm: spreadTerm(db) },
        ],
      },
    };
  } else if (scheduling.antiAffinity === "required") {
    const required = anti.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    merged = {
      ...user,
      podAntiAffinity: {
        ...anti,
        requiredDuringSchedulingIgnoredDuringExecution: [...required, spreadTerm(db)],
      },
    };
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/**
 * spec.scheduling.topologySpread as the pod's constraints, each selecting this Database's
 * instances (the user names the domains, never the pods).
 */
export const topologySpreadConstraints = (
  db: string,
  scheduling: Scheduling,
): V1TopologySpreadConstraint[] =>
  (scheduling.topologySpread ?? []).map(t => ({
    topologyKey: t.topologyKey,
    maxSkew: t.maxSkew,
    whenUnsatisfiable: t.whenUnsatisfiable,
    labelSelector: { matchLabels: selectorLabels(db) },
    ...(t.minDomains !== undefined ? { minDomains: t.minDomains } : {}),
  }));

/** nodeSelector, tolerations and affinity as pod spec fields, absent ones left out. */
export function podScheduling(
  db: string,
  scheduling: Scheduling,
  withAntiAffinity = true,
): { nodeSelector?: Record<string, string>; tolerations?: V1Toleration[]; affinity?: V1Affinity } {
  const merged = withAntiAffinity
    ? affinity(db, scheduling)
    : (scheduling.affinity as V1Affinity | undefined);
  return {
    ...(scheduling.nodeSelector && Object.keys(scheduling.nodeSelector).length > 0
      ? { nodeSelector: scheduling.nodeSelector }
      : {}),
    // Opaque core/v1 Tolerations in the CRD, validated by the API server on apply.
    ...(scheduling.tolerations?.length
      ? { tolerations: scheduling.tolerations as V1Toleration[] }
      : {}),
    ...(merged && Object.keys(merged).length > 0 ? { affinity: merged } : {}),
  };
}
