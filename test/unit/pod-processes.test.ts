import { innermostPid, type PodProcess, postmasterAmong } from "../e2e/load/processes";

const postmasterArgs = ["/usr/lib/postgresql/15/bin/postgres", "-D", "/var/lib/pgkeeper/data"];
const proc = (pid: number, containerPid: number, args = postmasterArgs): PodProcess => ({
  pid,
  containerPid,
  args,
});

describe("postmasterAmong", () => {
  it.each<[string, PodProcess[], number | undefined]>([
    ["the container's PID 1", [proc(900, 1), proc(901, 40, ["postgres: checkpointer"])], 900],
    // The CI failure (kill ESRCH): host PIDs wrapped, and a backend forked a moment ago still
    // showing the postmaster's command line came first in /proc and exited before the kill.
    ["not a just-forked backend with a lower host PID", [proc(120, 77), proc(900, 1)], 900],
    [
      "not the entrypoint's single-user server",
      [proc(300, 31, ["postgres", "--single", "-D", "/x.init"])],
      undefined,
    ],
    ["none while the container is starting", [], undefined],
  ])("%s", (_, processes, pid) => {
    expect(postmasterAmong(processes)?.pid).toBe(pid);
  });
});

describe("innermostPid", () => {
  it.each<[string, string, number]>([
    ["a container's process", "Name:\tpostgres\nNSpid:\t4242\t1\nNSpgid:\t4242\t1\n", 1],
    ["nested namespaces", "NSpid:\t4242\t17\t3\n", 3],
    ["no PID namespace", "Name:\tnode\nNSpid:\t4242\n", 4242],
  ])("%s", (_, status, pid) => {
    expect(innermostPid(status)).toBe(pid);
  });
});
