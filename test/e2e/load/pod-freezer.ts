/**
 * Freezes every process of a pod at once through its cgroup's freezer, as a hung node or a paused
 * VM would: unlike SIGSTOP of one process, sessions already open stop too, and nothing in the pod
 * answers, not even an exec.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { podProcesses } from "./processes";

export interface FreezerControl {
  /** The file whose content freezes (FROZEN or 1) and thaws (THAWED or 0). */
  file: string;
  frozen: string;
  thawed: string;
}

/**
 * The freezer of the pod's cgroup, from one of its processes' /proc/<pid>/cgroup: the v1 freezer
 * hierarchy when mounted, else the v2 unified one. The pod's cgroup is the path up to the segment
 * naming its UID (its containers' cgroups are below it).
 */
export function podFreezer(procCgroup: string, podUid: string): FreezerControl {
  const marks = [podUid, podUid.replace(/-/g, "_")];
  const lines = procCgroup.split("\n").filter(Boolean);
  const v1 = lines.find(l => l.split(":")[1]?.split(",").includes("freezer"));
  const line = v1 ?? lines.find(l => l.startsWith("0::"));
  if (!line) throw new Error(`no freezer cgroup in:\n${procCgroup}`);
  const segments = line.split(":").slice(2).join(":").split("/");
  const podAt = segments.findIndex(s => marks.some(m => s.includes(m)));
  if (podAt < 0) throw new Error(`no segment of pod ${podUid} in ${line}`);
  const podPath = segments.slice(0, podAt + 1).join("/");
  return v1
    ? { file: `/sys/fs/cgroup/freezer${podPath}/freezer.state`, frozen: "FROZEN", thawed: "THAWED" }
    : { file: `/sys/fs/cgroup${podPath}/cgroup.freeze`, frozen: "1", thawed: "0" };
}

/** Freezes the pod whose postgres runs; `thaw` undoes it (and may be called more than once). */
export function freezePod(podUid: string): { thaw: () => void } {
  const [any] = podProcesses(podUid, "postgres");
  if (!any) throw new Error(`no postgres process in pod ${podUid}`);
  const freezer = podFreezer(readFileSync(`/proc/${any.pid}/cgroup`, "utf8"), podUid);
  writeFileSync(freezer.file, freezer.frozen);
  const thaw = (): void => {
    try {
      writeFileSync(freezer.file, freezer.thawed);
    } catch (e) {
      // The pod's cgroup is gone with its processes: nothing left to thaw.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  };
  return { thaw };
}
