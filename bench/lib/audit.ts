/**
 * Counts the operator's requests in the apiserver's audit log, streamed from a byte offset (the
 * log grows to hundreds of MB in a large run; never read it whole).
 */
import { createReadStream, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { env, OPERATOR_USER } from "../../test/integration/harness/env";

export const auditSize = (): number => statSync(env.auditLog).size;

export interface AuditCounts {
  /** verb → count, e.g. { get: 0, list: 8, create: 9000 } (leases and events apart) */
  byVerb: Record<string, number>;
  /** "verb resource" → count */
  byVerbResource: Record<string, number>;
  leaseWrites: number;
  events: number;
  /** Reads a reconcile would make (get, or list without the informers' label selector). */
  reconcileReads: { get: number; list: number };
}

const INFORMER_SELECTOR = "managed-by%3Dpgkeeper";
const WRITE_VERBS = new Set(["create", "update", "patch", "delete"]);

/** The operator's requests between byte `from` of the audit log and its current end. */
export async function countOperatorRequests(from: number): Promise<AuditCounts> {
  const counts: AuditCounts = {
    byVerb: {},
    byVerbResource: {},
    leaseWrites: 0,
    events: 0,
    reconcileReads: { get: 0, list: 0 },
  };
  const lines = createInterface({ input: createReadStream(env.auditLog, { start: from }) });
  for await (const line of lines) {
    if (!line.includes(OPERATOR_USER)) continue;
    let e: {
      verb: string;
      requestURI: string;
      user: { username: string };
      objectRef?: { resource?: string };
    };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (e.user.username !== OPERATOR_USER) continue;
    const resource = e.objectRef?.resource ?? "";
    if (resource === "leases") {
      if (WRITE_VERBS.has(e.verb)) counts.leaseWrites++;
      continue;
    }
    if (resource === "events") {
      counts.events++;
      continue;
    }
    counts.byVerb[e.verb] = (counts.byVerb[e.verb] ?? 0) + 1;
    const k = `${e.verb} ${resource}`;
    counts.byVerbResource[k] = (counts.byVerbResource[k] ?? 0) + 1;
    // Watches (list+watch by Pepr's and our informers) are the cache's cost, not reconcile's.
    const isWatchList =
      e.requestURI.includes(INFORMER_SELECTOR) ||
      resource === "databases" ||
      resource === "peprstores";
    if (e.verb === "get") counts.reconcileReads.get++;
    if (e.verb === "list" && !isWatchList) counts.reconcileReads.list++;
  }
  return counts;
}

export const writesOf = (c: AuditCounts): number =>
  Object.entries(c.byVerb)
    .filter(([verb]) => WRITE_VERBS.has(verb))
    .reduce((n, [, v]) => n + v, 0);
