/**
 * The primary's own faults under the write load: its pod deleted, its postgres SIGKILLed, its
 * postmaster stopped, its whole pod frozen, cut off the network. Each ends with the frame's checks
 * (a new or the same primary, writes acknowledged again, no acknowledged row lost, never two
 * writable instances) and a fault-matrix row. Registered by in-cluster.test.ts against the operator as users install it.
 */
import { kubectlOk } from "../../integration/harness/kubectl";
import { waitFor } from "../../integration/harness/wait";
import { diagnosed } from "../diagnosis";
import { postmasterPid, signalEach } from "../load";
import { freezePod } from "../load/pod-freezer";
import { cutOff } from "../network-fault";
import { eventsSince } from "./events";
import { psql, superuserAt } from "../psql";
import { DB, type HaSuite, restartCount } from "./quorum-under-load";

/**
 * How long a standby may take to stream from a newly promoted primary while the old one is cut
 * off. A hung connection would hold it for wal_receiver_timeout (60 s before pgkeeper set 10 s
 * and repointed standbys actively); a reload-driven repoint takes well under a second.
 */
const FOLLOW_WITHIN_MS = 30_000;

/** The message of a FenceTimeout Warning recorded in `namespace` at or after `since`, if any. */
const fenceTimeoutSince = (namespace: string, since: number): string | undefined =>
  eventsSince(namespace, "FenceTimeout", since)[0];

export function primaryFaults(ha: HaSuite): void {
  const { status, pod, podIp, newPrimaryInsteadOf, expectRecovery, settle } = ha;
  it("fails over when the primary's pod is deleted", async () => {
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const t0 = Date.now();
    kubectlOk(["delete", "pod", primary, "-n", ha.ns, "--wait=false"]);
    await expectRecovery("primary's pod deleted", primary, ip, t0);
  }, 600_000);

  it("recovers from a SIGKILL of the primary's postgres, and fails over at once when it crash-loops", async () => {
    // The kubelet restarts the container at once the first time, and the operator gives a
    // primary restarted in place a few seconds to answer again (ha/decide.ts), so this first
    // kill usually ends in a restart in place, else in a failover. Either way: no loss, one
    // writable instance at a time, writes resume.
    const killed = status().currentPrimary!;
    const t0 = Date.now();
    process.kill(postmasterPid(pod(killed)!.metadata.uid!), "SIGKILL");
    await waitFor("the writer to see the kill", () => ha.load.errorTimes().some(t => t >= t0), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    const ack = await waitFor(
      "a write acknowledged after the kill",
      () => ha.load.recoveredAfter(t0),
      { timeoutMs: 120_000 },
    );
    console.log(
      `SIGKILL of ${killed}'s postgres: primary now ${status().currentPrimary}, first acknowledged write ${ack.at - t0} ms later`,
    );
    await settle("primary's postgres SIGKILLed", t0, { firstWriteAt: ack.at });

    // Crashes again soon after a restart: the kubelet waits 10 s or more before the next start
    // (CrashLoopBackOff). The operator must fail over at once instead of waiting with it.
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const crashLoopAt = await crashUntilBackOff(primary);
    await expectRecovery("primary's postgres crash-looping", primary, ip, crashLoopAt);
    // Whichever the operator saw first, the kubelet's backoff or three refused probes: the two
    // race (bench/failover: about 2 s against 3 s after the kill).
    const reason = status().lastFailover?.reason ?? "";
    console.log(`crash-loop failover of ${primary}: ${reason}`);
    expect(status().lastFailover).toMatchObject({ from: primary });
    expect(reason).toMatch(/CrashLoopBackOff|stopped answering SQL probes/);
  }, 600_000);

  /**
   * SIGKILLs `primary`'s postmaster, again each time the kubelet restarts it, until the kubelet
   * holds it back (CrashLoopBackOff) or the operator fails over: returns when the last kill was.
   */
  async function crashUntilBackOff(primary: string): Promise<number> {
    const uid = pod(primary)!.metadata.uid!;
    for (let attempt = 1; ; attempt++) {
      const pid = postmasterPid(uid);
      const at = Date.now();
      process.kill(pid, "SIGKILL");
      const next = await waitFor(
        `${primary}'s postgres restarted or held back after kill ${attempt}`,
        () => {
          if (postgresWaitingReason(primary) === "CrashLoopBackOff") return "held back";
          if (status().currentPrimary !== primary) return "failed over";
          const restarted = postmasterPidOrNone(uid);
          return restarted !== undefined && restarted !== pid ? "restarted" : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      console.log(`kill ${attempt} of ${primary}'s postgres: ${next}`);
      if (next !== "restarted") return at;
      if (attempt === 3) throw new Error(`${primary}'s postgres restarted at once three times`);
    }
  }

  const postgresWaitingReason = (name: string): string | undefined =>
    (
      (pod(name)?.status?.containerStatuses ?? []) as {
        name: string;
        state?: { waiting?: { reason?: string } };
      }[]
    ).find(c => c.name === "postgres")?.state?.waiting?.reason;

  const postmasterPidOrNone = (uid: string): number | undefined => {
    try {
      return postmasterPid(uid);
    } catch {
      return undefined; // not started (yet)
    }
  };

  it("fails over when the primary's postmaster alone is stopped (SIGSTOP), fencing it", async () => {
    // Sessions already open keep running: only new connections and the postmaster's own work
    // stop. The whole-pod freeze below stops them too.
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const pid = postmasterPid(pod(primary)!.metadata.uid!);
    const t0 = Date.now();
    process.kill(pid, "SIGSTOP");
    try {
      await expectRecovery("primary's postmaster stopped (SIGSTOP)", primary, ip, t0);
    } finally {
      signalEach([pid], "SIGCONT"); // fenced: usually gone, as it should be
    }
  }, 600_000);

  it("waits at the fence while the primary's whole pod is frozen (a hung node), promoting nobody; fails over once it thaws", async () => {
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const frozen = freezePod(pod(primary)!.metadata.uid!);
    const t0 = Date.now();
    try {
      // Nothing can confirm that a frozen postgres stopped: the kubelet's kill stays pending. The
      // failover must wait at the fence (ADR 0011) and say so, rather than promote beside it.
      const warning = await diagnosed(
        waitFor(
          "the failover waiting at the fence (a FenceTimeout Warning)",
          () => fenceTimeoutSince(ha.ns, t0),
          { timeoutMs: 180_000, intervalMs: 1000 },
        ),
        ha.ns,
        DB,
        ha.operatorLog,
      );
      console.log(`frozen ${primary}: ${warning}`);
      expect(status().currentPrimary).toBe(primary);
      // Asked of PostgreSQL: every other instance is still a standby.
      for (const other of ha.podsOf().filter(p => p.metadata.name !== primary))
        expect(psql(superuserAt(ha.ns, DB, other), "select pg_is_in_recovery()")).toBe("t");
    } finally {
      frozen.thaw();
    }
    // The node answers again: the pending kill ends postgres, the fence is confirmed, a standby
    // is promoted and the old primary rejoins as a standby.
    await expectRecovery(
      "primary's whole pod frozen (cgroup freezer) past the fence timeout",
      primary,
      ip,
      t0,
    );
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
