/**
 * Counts the operator's requests in the apiserver's audit log, streamed from a byte offset (the
 * log grows to hundreds of MB in a large run; never read it whole).
 */
import { createReadStream, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { env, OPERATOR_USER } from "../../test/integration/harness/env";

/**
 * A position in the audit log. The apiserver rotates it at 100 MB (audit.log is renamed to
 * audit-<time>.log): the inode tells which file the offset belongs to.
 */
export interface AuditMark {
  ino: number;
  offset: number;
  at: number;
}

export function auditMark(): AuditMark {
  const st = statSync(env.auditLog);
  return { ino: st.ino, offset: st.size, at: Date.now() };
}

/** The files holding everything written since `mark`, each with where to start reading. */
function filesSince(mark: AuditMark): { path: string; start: number }[] {
  const dir = dirname(env.auditLog);
  const base = basename(env.auditLog, ".log");
  return readdirSync(dir)
    .filter(f => f === `${base}.log` || (f.startsWith(`${base}-`) && f.endsWith(".log")))
    .map(f => ({ path: join(dir, f), st: statSync(join(dir, f)) }))
    .filter(f => f.st.ino === mark.ino || f.st.mtimeMs >= mark.at)
    .sort((a, b) => a.st.mtimeMs - b.st.mtimeMs)
    .map(f => ({ path: f.path, start: f.st.ino === mark.ino ? mark.offset : 0 }));
}

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

/**
 * The operator's requests between byte `from` of the audit log and its current end: those of
 * `user` (the host operator's by default; an installed one's is its ServiceAccount).
 */
export async function countOperatorRequests(
  mark: AuditMark,
  user: string = OPERATOR_USER,
): Promise<AuditCounts> {
  const counts: AuditCounts = {
    byVerb: {},
    byVerbResource: {},
    leaseWrites: 0,
    events: 0,
    reconcileReads: { get: 0, list: 0 },
  };
  for (const file of filesSince(mark)) await countFile(file.path, file.start, user, counts);
  return counts;
}

async function countFile(
  path: string,
  start: number,
  user: string,
  counts: AuditCounts,
): Promise<void> {
  const lines = createInterface({ input: createReadStream(path, { start }) });
  for await (const line of lines) {
    if (!line.includes(user)) continue;
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
    if (e.user.username !== user) continue;
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
}

export const writesOf = (c: AuditCounts): number =>
  Object.entries(c.byVerb)
    .filter(([verb]) => WRITE_VERBS.has(verb))
    .reduce((n, [, v]) => n + v, 0);
