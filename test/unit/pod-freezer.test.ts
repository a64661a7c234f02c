import { podFreezer } from "../e2e/load/pod-freezer";

const uid = "3f1c2a9e-0b7d-4e51-9c3a-2d6f8e4b1a07";
const cid = "9d2b7c";

describe("podFreezer", () => {
  it.each<[string, string, ReturnType<typeof podFreezer>]>([
    [
      "cgroup v1, cgroupfs driver: the freezer hierarchy, the pod's directory",
      `9:name=systemd:/kubepods/burstable/pod${uid}/${cid}\n6:freezer:/kubepods/burstable/pod${uid}/${cid}\n0::/\n`,
      {
        file: `/sys/fs/cgroup/freezer/kubepods/burstable/pod${uid}/freezer.state`,
        frozen: "FROZEN",
        thawed: "THAWED",
      },
    ],
    [
      "cgroup v1 without QoS cgroups",
      `6:freezer:/pod${uid}/${cid}\n`,
      {
        file: `/sys/fs/cgroup/freezer/pod${uid}/freezer.state`,
        frozen: "FROZEN",
        thawed: "THAWED",
      },
    ],
    [
      "cgroup v2, systemd driver (underscores in the UID)",
      `0::/kubepods.slice/kubepods-pod${uid.replace(/-/g, "_")}.slice/cri-containerd-${cid}.scope\n`,
      {
        file: `/sys/fs/cgroup/kubepods.slice/kubepods-pod${uid.replace(/-/g, "_")}.slice/cgroup.freeze`,
        frozen: "1",
        thawed: "0",
      },
    ],
  ])("%s", (_, cgroup, expected) => {
    expect(podFreezer(cgroup, uid)).toEqual(expected);
  });

  it("refuses a process outside the pod rather than freeze something else", () => {
    expect(() => podFreezer("6:freezer:/\n0::/\n", uid)).toThrow(`no segment of pod ${uid}`);
  });
});
