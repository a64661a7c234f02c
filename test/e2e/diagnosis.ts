/**
 * What a failed e2e wait prints, so a CI failure on a machine we cannot log into explains itself:
 * the Database's status, its pods, the namespace's Events, the last lines of each instance's log
 * and of the operator's.
 * Every part is bounded (tails, not whole logs), so the report cannot overflow anything.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { kubectl, list } from "../integration/harness/kubectl";

const POD_LOG_LINES = 25;
const OPERATOR_LOG_ENTRIES = 25;
const TAIL_BYTES = 512 * 1024;
const EVENTS = 30;

/** The end of a file, its last 512 KiB at most, without terminal colours. */
function tailOfFile(path: string): string {
  const size = statSync(path).size;
  const length = Math.min(size, TAIL_BYTES);
  const buffer = Buffer.alloc(length);
  const fd = openSync(path, "r");
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  // eslint-disable-next-line no-control-regex
  return buffer.toString("utf8").replace(/\x1b\[[0-9;]*m/g, "");
}

/**
 * The operator's last log entries about this Database, and its warnings and errors. On the host
 * they are pretty-printed (a `[time] LEVEL` line, then its fields); in the cluster, one JSON
 * object per line (pino's levels: 40 warn, 50 error, 60 fatal).
 */
export function operatorEntries(log: string, key: string, count: number): string {
  return log
    .split(/\n(?=\[\d\d:\d\d:\d\d\.\d+\] |\{)/)
    .filter(
      e =>
        e.includes(key) ||
        /^\[[^\]]+\] (WARN|ERROR|FATAL)/.test(e) ||
        /^\{.*"level":(40|50|60)[,}]/.test(e),
    )
    .slice(-count)
    .join("\n");
}

function databaseStatus(ns: string, name: string): string {
  const r = kubectl(["get", "database", "-n", ns, name, "-o", "jsonpath={.status}"]);
  return r.code === 0 ? r.stdout : `(cannot read: ${r.stderr.trim()})`;
}

function podLines(ns: string, name: string): string[] {
  return list("pod", ns, `pgkeeper.dev/database=${name}`).map(p => {
    const s = p.status as
      | {
          phase?: string;
          podIP?: string;
          containerStatuses?: {
            name: string;
            ready: boolean;
            restartCount: number;
            lastState?: { terminated?: { reason?: string; exitCode?: number } };
          }[];
        }
      | undefined;
    const containers = (s?.containerStatuses ?? [])
      .map(c => {
        const last = c.lastState?.terminated;
        const lastText = last ? ` last=${last.reason ?? "?"}(${last.exitCode ?? "?"})` : "";
        return `${c.name} ready=${c.ready} restarts=${c.restartCount}${lastText}`;
      })
      .join("; ");
    const role = p.metadata.labels?.["pgkeeper.dev/role"] ?? "-";
    const deleting = p.metadata.deletionTimestamp ? " (deleting)" : "";
    return `${p.metadata.name} uid=${p.metadata.uid} role=${role} phase=${s?.phase} ip=${s?.podIP} ${containers}${deleting}`;
  });
}

/** The namespace's last Events, oldest first: what the operator and the kubelet did, and why. */
function recentEvents(ns: string): string[] {
  const r = kubectl([
    "get",
    "events",
    "-n",
    ns,
    "--sort-by=.lastTimestamp",
    "-o",
    "custom-columns=LAST:.lastTimestamp,TYPE:.type,REASON:.reason,OBJECT:.involvedObject.name,MESSAGE:.message",
    "--no-headers",
  ]);
  if (r.code !== 0) return [`(cannot read events: ${r.stderr.trim()})`];
  return r.stdout.trim().split("\n").slice(-EVENTS);
}

function podLog(ns: string, pod: string): string {
  const r = kubectl(["logs", "-n", ns, pod, `--tail=${POD_LOG_LINES}`]);
  return r.code === 0 ? r.stdout : `(no log: ${r.stderr.trim()})`;
}

/**
 * Where the operator's log is: a file, or a function that writes one when asked (the installed
 * operator's logs are fetched only when a diagnosis needs them).
 */
export type OperatorLog = string | (() => string | undefined);

/** The file of the operator's log, written now if it is written on demand. */
export const operatorLogFile = (log?: OperatorLog): string | undefined =>
  typeof log === "function" ? log() : log;

/** A bounded report of the Database, its pods and their logs, and the operator's log. */
export function diagnosis(ns: string, name: string, operatorLog?: OperatorLog): string {
  const logFile = operatorLogFile(operatorLog);
  const pods = list("pod", ns, `pgkeeper.dev/database=${name}`).map(p => p.metadata.name);
  const parts = [
    `--- diagnosis of ${ns}/${name} ---`,
    `status: ${databaseStatus(ns, name)}`,
    "pods:",
    ...podLines(ns, name).map(l => `  ${l}`),
    `--- the namespace's last ${EVENTS} events ---`,
    ...recentEvents(ns),
    ...pods.map(p => `--- last ${POD_LOG_LINES} lines of ${p}'s postgres ---\n${podLog(ns, p)}`),
  ];
  if (logFile) {
    let entries: string;
    try {
      entries = operatorEntries(tailOfFile(logFile), `${ns}/${name}`, OPERATOR_LOG_ENTRIES);
    } catch (err) {
      entries = `(cannot read ${logFile}: ${(err as Error).message})`;
    }
    parts.push(
      `--- the operator's last ${OPERATOR_LOG_ENTRIES} entries on ${ns}/${name}, and warnings ---`,
      entries,
    );
  }
  return parts.join("\n");
}

/** Runs `wait`; when it fails, the error carries the diagnosis. */
export async function diagnosed<T>(
  wait: Promise<T>,
  ns: string,
  name: string,
  operatorLog?: OperatorLog,
): Promise<T> {
  try {
    return await wait;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`${message}\n${diagnosis(ns, name, operatorLog)}`);
  }
}
