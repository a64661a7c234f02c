/**
 * Where a pod's cgroup is, for one controller, from one of its processes' /proc/<pid>/cgroup: the
 * cgroup v1 hierarchy of that controller when mounted, else the v2 unified one. The pod's cgroup
 * is the path up to the segment naming its UID (its containers' cgroups are below it), so what it
 * holds counts every container of the pod, and processes that already exited.
 */

export interface PodCgroup {
  /** The directory under /sys/fs/cgroup. */
  dir: string;
  version: 1 | 2;
}

export function podCgroup(procCgroup: string, podUid: string, controller: string): PodCgroup {
  const marks = [podUid, podUid.replace(/-/g, "_")];
  const lines = procCgroup.split("\n").filter(Boolean);
  const v1 = lines.find(l => l.split(":")[1]?.split(",").includes(controller));
  const line = v1 ?? lines.find(l => l.startsWith("0::"));
  if (!line) throw new Error(`no ${controller} cgroup in:\n${procCgroup}`);
  const segments = line.split(":").slice(2).join(":").split("/");
  const podAt = segments.findIndex(s => marks.some(m => s.includes(m)));
  if (podAt < 0) throw new Error(`no segment of pod ${podUid} in ${line}`);
  const podPath = segments.slice(0, podAt + 1).join("/");
  return v1
    ? { dir: `/sys/fs/cgroup/${line.split(":")[1]}${podPath}`, version: 1 }
    : { dir: `/sys/fs/cgroup${podPath}`, version: 2 };
}
