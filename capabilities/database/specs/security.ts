/**
 * Security contexts shared by instance and backup pods: non-root as the image's postgres uid,
 * no privilege escalation, no capabilities, RuntimeDefault seccomp, read-only root file system
 * (PostgreSQL writes only to its volumes). Meets the `restricted` Pod Security Standard.
 */
import type { V1PodSecurityContext, V1SecurityContext } from "@kubernetes/client-node";
import { POSTGRES_UID } from "./layout";

export function podSecurityContext(): V1PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: POSTGRES_UID,
    runAsGroup: POSTGRES_UID,
    fsGroup: POSTGRES_UID,
    // Recursive chown/chmod of a large data volume on every start is slow and adds group
    // permissions postgres rejects on PGDATA; only fix the volume when its root is wrong.
    fsGroupChangePolicy: "OnRootMismatch",
    seccompProfile: { type: "RuntimeDefault" },
  };
}

export function containerSecurityContext(): V1SecurityContext {
  return {
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
    seccompProfile: { type: "RuntimeDefault" },
  };
}
