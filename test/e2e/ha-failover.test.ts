/**
 * Failover under a continuous write load (quorum mode, so every acknowledged row must survive):
 * the primary's pod deleted, its postgres SIGKILLed, frozen, cut off the network; the operator
 * killed mid-failover; every pod deleted at once; every standby lost mid-failover; a failover
 * right after a password rotation.
 * The frame (Database, load, checks, fault matrix) is ha/quorum-under-load.ts.
 */
import { get, kubectlOk, list } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { DB, quorumDatabaseUnderLoad, restartCount } from "./ha/quorum-under-load";
import { postmasterPid } from "./load";
import { cutOff } from "./network-fault";
import { psql, superuserAt } from "./psql";

const ha = quorumDatabaseUnderLoad("ha-failover");
const { status, pod, podIp, podsOf, newPrimaryInsteadOf, primaryOn, expectRecovery, settle } = ha;

/**
 * How long a standby may take to stream from a newly promoted primary while the old one is cut
 * off. A hung connection would hold it for wal_receiver_timeout (60 s before pgkeeper set 10 s
 * and repointed standbys actively); a reload-driven repoint takes well under a second.
 */
const FOLLOW_WITHIN_MS = 30_000;

describe("failover of a 3-instance Database in quorum mode under write load", () => {
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

  it("finishes a failover the operator was killed in the middle of, promoting once", async () => {
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const timeline = status().instances!.find(i => i.name === primary)!.timeline!;
    const t0 = Date.now();
    kubectlOk(["delete", "pod", primary, "-n", ha.ns, "--wait=false"]);
    await waitFor("the failover recorded", () => get("database", ha.ns, DB)?.status?.operation, {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    await ha.operator.stop("SIGKILL");
    await ha.operator.start();
    await expectRecovery("operator SIGKILLed mid-failover", primary, ip, t0);
    const after = status();
    expect(after.lastFailover?.from).toBe(primary);
    // One promotion: the new primary is on the next timeline, not two further.
    expect(after.instances!.find(i => i.name === after.currentPrimary)!.timeline).toBe(
      timeline + 1,
    );
  }, 600_000);

  it("comes back after every pod is deleted at once (full outage)", async () => {
    const t0 = Date.now();
    kubectlOk(["delete", "pod", "-n", ha.ns, "-l", `pgkeeper.dev/database=${DB}`, "--wait=false"]);
    await waitFor("a write acknowledged after the outage", () => ha.load.recoveredAfter(t0), {
      timeoutMs: 300_000,
    });
    await settle("every pod deleted at once", t0);
  }, 600_000);

  it("comes back when every standby goes down during a failover, before anyone is promoted", async () => {
    // Pod 0 as the old primary: with pods started in order it waited for a target that, not yet
    // created, never came (a CI failure); now every pod starts at once, and a failover that can
    // promote nobody gives the old primary, back and holding every acknowledged write, its role.
    await primaryOn(0);
    const t0 = Date.now();
    kubectlOk(["delete", "pod", `${DB}-0`, "-n", ha.ns, "--wait=false"]);
    await waitFor("the failover recorded", () => get("database", ha.ns, DB)?.status?.operation, {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    kubectlOk(["delete", "pod", `${DB}-1`, `${DB}-2`, "-n", ha.ns, "--wait=false"]);
    await waitFor("a write acknowledged after the outage", () => ha.load.recoveredAfter(t0), {
      timeoutMs: 300_000,
    });
    await settle("primary on pod 0 deleted, then every standby mid-failover", t0);
  }, 600_000);

  it("rotates the superuser password edited in its Secret with no restart, then fails over with it", async () => {
    const primary = status().currentPrimary!;
    const ip = podIp(primary);
    const pods = () => podsOf().map(p => ({ uid: p.metadata.uid, restarts: restartCount(p) }));
    const before = pods();
    const rotated = `rotated-${Date.now()}`;
    const t0 = Date.now();
    kubectlOk(
      [
        ["patch", "secret", `${DB}-superuser`, "-n", ha.ns, "--type=merge", "-p"],
        [JSON.stringify({ stringData: { password: rotated } })],
      ].flat(),
    );
    for (const p of podsOf())
      await waitFor(
        `${p.metadata.name} to accept the new superuser password`,
        () => {
          try {
            return psql({ ...superuserAt(ha.ns, DB, p), password: rotated }, "select 1") === "1";
          } catch {
            return false; // not rotated (or not replayed) yet
          }
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
    expect(pods()).toEqual(before);
    // A failover makes every standby's WAL receiver log in again, through its passfile.
    kubectlOk(["delete", "pod", primary, "-n", ha.ns, "--wait=false"]);
    await expectRecovery(
      "superuser password rotated, then the primary's pod deleted",
      primary,
      ip,
      t0,
    );
    expect(
      list("event", ha.ns).some(
        e => e.reason === "PasswordRotated" && String(e.message).includes("role postgres"),
      ),
    ).toBe(true);
  }, 600_000);
});
