/**
 * Freezes every process of a pod at once through its cgroup's freezer, as a hung node or a paused
 * VM would: unlike SIGSTOP of one process, sessions already open stop too, and nothing in the pod
 * answers, not even an exec.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { podCgroup } from "./pod-cgroup";
import { podProcesses } from "./processes";

export interface FreezerControl {
  /** The file whose content freezes (FROZEN or 1) and thaws (THAWED or 0). */
  file: string;
  frozen: string;
  thawed: string;
}

/** The freezer of the pod's cgroup (pod-cgroup.ts), from one of its processes' /proc/<pid>/cgroup. */
export function podFreezer(procCgroup: string, podUid: string): FreezerControl {
  const { dir, version } = podCgroup(procCgroup, podUid, "freezer");
  return version === 1
    ? { file: `${dir}/freezer.state`, frozen: "FROZEN", thawed: "THAWED" }
    : { file: `${dir}/cgroup.freeze`, frozen: "1", thawed: "0" };
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
