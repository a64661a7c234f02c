/**
 * Reads the apiserver's audit log (JSON lines) to count what the operator did: the proof that a
 * converged operator makes no writes is the absence of its mutating requests, not our own logs.
 */
import { existsSync, readFileSync } from "node:fs";
import { env, OPERATOR_USER } from "./env";

export interface AuditEvent {
  stage: string;
  verb: string;
  user: { username: string };
  userAgent?: string;
  requestURI: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
}

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);

export function auditEvents(since: Date, user = OPERATOR_USER): AuditEvent[] {
  if (!existsSync(env.auditLog)) throw new Error(`no audit log at ${env.auditLog}`);
  return readFileSync(env.auditLog, "utf8")
    .split("\n")
    .filter(line => line.includes(user))
    .map(line => {
      try {
        return JSON.parse(line) as AuditEvent;
      } catch {
        return undefined;
      }
    })
    .filter((e): e is AuditEvent => e !== undefined)
    .filter(e => e.stage === "ResponseComplete" && e.user.username === user)
    .filter(e => new Date(e.requestReceivedTimestamp) >= since);
}

/** Mutating requests by the operator since `since` (Leases excluded: renewals are expected). */
export function operatorWrites(since: Date, namespace?: string): AuditEvent[] {
  return auditEvents(since).filter(
    e =>
      MUTATING.has(e.verb) &&
      e.objectRef?.resource !== "leases" &&
      (namespace === undefined || e.objectRef?.namespace === namespace),
  );
}

export const describeEvent = (e: AuditEvent): string =>
  `${e.verb} ${e.objectRef?.resource ?? ""}${e.objectRef?.subresource ? "/" + e.objectRef.subresource : ""} ${e.objectRef?.namespace ?? ""}/${e.objectRef?.name ?? ""}`;
