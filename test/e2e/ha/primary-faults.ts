/**
 * The primary's own faults under the write load: its pod deleted, its postgres SIGKILLed, the
 * whole instance frozen, cut off the network. Each ends with the frame's checks (a new or the same
 * primary, writes acknowledged again, no acknowledged row lost, never two writable instances) and
 * a fault-matrix row. Registered by in-cluster.test.ts against the operator as users install it.
 */
import { kubectlOk } from "../../integration/harness/kubectl";
import { waitFor } from "../../integration/harness/wait";
import { postmasterPid } from "../load";
import { cutOff } from "../network-fault";
import { psql, superuserAt } from "../psql";
import { DB, type HaSuite, restartCount } from "./quorum-under-load";

/**
 * How long a standby may take to stream from a newly promoted primary while the old one is cut
 * off. A hung connection would hold it for wal_receiver_timeout (60 s before pgkeeper set 10 s
 * and repointed standbys actively); a reload-driven repoint takes well under a second.
 */
const FOLLOW_WITHIN_MS = 30_000;

export function primaryFaults(ha: HaSuite): void {
  const { status, pod, podIp, newPrimaryInsteadOf, expectRecovery, settle } = ha;
  it("fails over when the primary's pod is deleted", async () => {
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const t0 = Date.now();
    kubectlOk(["delete", "pod", primary, "-n", ha.ns, "--wait=false"]);
    await expectRecovery("primary's pod deleted", primary, ip, t0);
  }, 600_000);

  it("fails over when the primary's postgres is killed with SIGKILL", async () => {
    const primary = status().currentPrimary!;
    const pid = postmasterPid(pod(primary)!.metadata.uid!);
    const t0 = Date.now();
    process.kill(pid, "SIGKILL");
    // The kubelet restarts the container at once; whether it comes back before the failure
    // threshold decides between a restart in place and a failover. Either way: no loss, one
    // writable instance at a time, writes resume.
    await waitFor("the writer to see the kill", () => ha.load.errorTimes().some(t => t >= t0), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    const ack = await waitFor(
      "a write acknowledged after the kill",
      () => ha.load.recoveredAfter(t0),
      {
        timeoutMs: 120_000,
      },
    );
    console.log(
      `SIGKILL of ${primary}'s postgres: primary now ${status().currentPrimary}, first acknowledged write ${ack.at - t0} ms later`,
    );
    await settle("primary's postgres SIGKILLed", t0, { firstWriteAt: ack.at });
  }, 600_000);

  it("fails over when the primary is frozen (SIGSTOP), fencing it", async () => {
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const pid = postmasterPid(pod(primary)!.metadata.uid!);
    const t0 = Date.now();
    process.kill(pid, "SIGSTOP");
    try {
      await expectRecovery("primary frozen (SIGSTOP)", primary, ip, t0);
    } finally {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // fenced: the process is gone, as it should be
      }
    }
  }, 600_000);

  it("fails over when the primary is cut off the network; its standby follows the new one at once", async () => {
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const t0 = Date.now();
    const fault = cutOff(ip);
    try {
      const s = await newPrimaryInsteadOf(primary);
      const promoted = Date.now();
      // While the old primary is still cut off (its connections hang, nothing closes them): the
      // other standby must stream from the new primary, whose commits wait for one in quorum
      // mode. Waiting on the hung connection would take wal_receiver_timeout.
      const newPrimary = pod(s.currentPrimary!)!;
      await waitFor(
        `a synchronous standby streaming from ${s.currentPrimary}`,
        () =>
          Number(
            psql(
              superuserAt(ha.ns, DB, newPrimary),
              "select count(*) from pg_stat_replication where state = 'streaming' and sync_state in ('quorum', 'sync')",
            ),
          ) > 0,
        { timeoutMs: FOLLOW_WITHIN_MS, intervalMs: 250 },
      );
      const ack = await waitFor(
        "a write acknowledged after the fault",
        () => ha.load.firstAckAfter(t0, ip),
        {
          timeoutMs: FOLLOW_WITHIN_MS,
        },
      );
      console.log(
        `network cut of ${primary}: ${s.currentPrimary} promoted ${promoted - t0} ms after the fault, first acknowledged write ${ack.at - t0} ms after it`,
      );
    } finally {
      fault.heal();
    }
    // The old primary wrote WAL nobody acknowledged: it must rewind and stream again, first try.
    await expectRecovery("primary cut off the network", primary, ip, t0);
    expect(restartCount(pod(primary)!)).toBe(0);
  }, 600_000);
}
