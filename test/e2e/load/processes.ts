/**
 * A pod's processes as the node sees them, for fault injection: the node runs containers as host
 * processes, so /proc shows them; the pod's cgroup path carries its UID (with dashes or, under
 * systemd, underscores).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface PodProcess {
  /** Host PID (what process.kill takes). */
  pid: number;
  args: string[];
  /** PID inside the container's own PID namespace: 1 for the process the container started. */
  containerPid: number;
}

/** The innermost PID of /proc/<pid>/status's NSpid line (the host PID without PID namespaces). */
export function innermostPid(status: string): number {
  const line = status.split("\n").find(l => l.startsWith("NSpid:"));
  const pids = (line ?? "").split(/\s+/).slice(1).filter(Boolean);
  return Number(pids[pids.length - 1]);
}

/** Host PIDs of a pod's processes running `exe` (a path's last part), with their arguments. */
export function podProcesses(podUid: string, exe: string): PodProcess[] {
  const marks = [podUid, podUid.replace(/-/g, "_")];
  const found: PodProcess[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cgroup = readFileSync(`/proc/${entry}/cgroup`, "utf8");
      if (!marks.some(m => cgroup.includes(m))) continue;
      if (!readlinkSync(`/proc/${entry}/exe`).endsWith(`/${exe}`)) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const containerPid = innermostPid(readFileSync(`/proc/${entry}/status`, "utf8"));
      found.push({ pid: Number(entry), args, containerPid });
    } catch {
      // the process went away while we looked
    }
  }
  return found;
}

/**
 * The postmaster among a pod's postgres processes: the one the container started (entrypoint.sh
 * execs it, so it is PID 1 in the container). Arguments alone do not tell: a backend forked a
 * moment ago still shows the postmaster's command line until it sets its title, and once host
 * PIDs wrap (pid_max 32768 on a small machine) it can come first in /proc; the entrypoint's
 * single-user and recovery servers run with -D too.
 */
export function postmasterAmong(processes: PodProcess[]): PodProcess | undefined {
  return processes.find(p => p.containerPid === 1);
}

/** Host PID of the postmaster in a pod. */
export function postmasterPid(podUid: string): number {
  const postmaster = postmasterAmong(podProcesses(podUid, "postgres"));
  if (!postmaster) throw new Error(`no postmaster found for pod ${podUid}`);
  return postmaster.pid;
}

/** Host PIDs of every PostgreSQL process in a pod (to freeze a whole instance). */
export function postgresPids(podUid: string): number[] {
  return podProcesses(podUid, "postgres").map(p => p.pid);
}

/**
 * Sends `signal` to each PID; one that has exited since it was listed (a short-lived backend) is
 * skipped, anything else is thrown.
 */
export function signalEach(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e;
    }
  }
}
