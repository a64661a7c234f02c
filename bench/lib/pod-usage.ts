/**
 * CPU a pod has used, from its cgroup (test/e2e/load/pod-cgroup.ts): every container of the pod
 * and every process that already exited (a PostgreSQL backend per connection), which per-process
 * figures from /proc miss.
 */
import { readFileSync } from "node:fs";
import { podCgroup } from "../../test/e2e/load/pod-cgroup";
import { podProcesses } from "../../test/e2e/load/processes";

const dirs = new Map<string, ReturnType<typeof podCgroup>>();

/** The pod's cpuacct cgroup, found through one of its `exe` processes (cached by UID). */
function cpuCgroup(uid: string, exe: string): ReturnType<typeof podCgroup> {
  const known = dirs.get(uid);
  if (known) return known;
  const [any] = podProcesses(uid, exe);
  if (!any) throw new Error(`no ${exe} process in pod ${uid}`);
  const found = podCgroup(readFileSync(`/proc/${any.pid}/cgroup`, "utf8"), uid, "cpuacct");
  dirs.set(uid, found);
  return found;
}

/** CPU seconds the pod of `uid` has used, found through one of its `exe` processes. */
export function podCpuSeconds(uid: string, exe: string): number {
  const { dir, version } = cpuCgroup(uid, exe);
  if (version === 1) return Number(readFileSync(`${dir}/cpuacct.usage`, "utf8")) / 1e9;
  const usec = /^usage_usec (\d+)$/m.exec(readFileSync(`${dir}/cpu.stat`, "utf8"))?.[1];
  return Number(usec) / 1e6;
}
