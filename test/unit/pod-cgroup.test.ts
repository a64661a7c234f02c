import { podCgroup } from "../e2e/load/pod-cgroup";

const uid = "3f1c2a9e-0b7d-4e51-9c3a-2d6f8e4b1a07";
const cid = "9d2b7c";

describe("podCgroup", () => {
  it.each<[string, string, string, ReturnType<typeof podCgroup>]>([
    [
      "cgroup v1: the controller's hierarchy as mounted (cpu and cpuacct together)",
      `7:cpu,cpuacct:/kubepods/besteffort/pod${uid}/${cid}\n6:freezer:/kubepods/besteffort/pod${uid}/${cid}\n`,
      "cpuacct",
      { dir: `/sys/fs/cgroup/cpu,cpuacct/kubepods/besteffort/pod${uid}`, version: 1 },
    ],
    [
      "cgroup v1, another controller of the same process",
      `7:cpu,cpuacct:/kubepods/besteffort/pod${uid}/${cid}\n6:freezer:/kubepods/besteffort/pod${uid}/${cid}\n`,
      "freezer",
      { dir: `/sys/fs/cgroup/freezer/kubepods/besteffort/pod${uid}`, version: 1 },
    ],
    [
      "cgroup v2: the unified hierarchy, whatever the controller",
      `0::/kubepods.slice/kubepods-pod${uid.replace(/-/g, "_")}.slice/cri-containerd-${cid}.scope\n`,
      "cpuacct",
      {
        dir: `/sys/fs/cgroup/kubepods.slice/kubepods-pod${uid.replace(/-/g, "_")}.slice`,
        version: 2,
      },
    ],
  ])("%s", (_, cgroup, controller, expected) => {
    expect(podCgroup(cgroup, uid, controller)).toEqual(expected);
  });

  it("refuses a process with no cgroup of the controller", () => {
    expect(() => podCgroup("6:freezer:/x\n", uid, "cpuacct")).toThrow("no cpuacct cgroup in");
  });
});
