/**
 * Replicas and the Database's own state under a continuous write load: a replica SIGKILLed, a
 * replica frozen while its WAL was recycled (repaired), a replica promoted by hand (fenced), the
 * superuser Secret deleted, pod 0's data directory lost.
 * The frame (Database, load, checks, fault matrix) is ha/quorum-under-load.ts.
 */
import { renameSync } from "node:fs";
import { PGDATA } from "../../capabilities/database/specs/layout";
import { get, kubectl, kubectlOk, list } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { DB, quorumDatabaseUnderLoad, restartCount } from "./ha/quorum-under-load";
import { postgresPids, postmasterPid, signalEach } from "./load";
import { psql, superuserAt } from "./psql";

const ha = quorumDatabaseUnderLoad("ha-replicas");
const { status, pod, settle, setting } = ha;

describe("replicas and state of a 3-instance Database in quorum mode under write load", () => {
  it("keeps acknowledging writes when a replica's postgres is SIGKILLed; the replica comes back", async () => {
    const before = status();
    const replica = before.instances!.find(i => i.role === "replica")!.name;
    const restarts = restartCount(pod(replica)!);
    const t0 = Date.now();
    process.kill(postmasterPid(pod(replica)!.metadata.uid!), "SIGKILL");
    // Quorum ANY 1 of two standbys: the other one acknowledges, the primary stays.
    const ack = await waitFor(
      "a write acknowledged after the kill",
      () => ha.load.firstAckAfter(t0),
      {
        timeoutMs: 30_000,
      },
    );
    await waitFor(
      `${replica}'s container restarted`,
      () => restartCount(pod(replica)!) > restarts,
      {
        timeoutMs: 60_000,
      },
    );
    await settle("a replica's postgres SIGKILLed", t0, { firstWriteAt: ack.at });
    expect(status().currentPrimary).toBe(before.currentPrimary);
  }, 600_000);

  it("repairs a replica frozen while the primary recycled the WAL it needs: cloned again, streaming", async () => {
    const before = status();
    const replica = before.instances!.find(i => i.role === "replica")!.name;
    const frozenUid = pod(replica)!.metadata.uid!;
    const setWalKeep = (value: string | null) =>
      kubectlOk(
        [
          ["patch", "database", DB, "-n", ha.ns, "--type=merge", "-p"],
          [JSON.stringify({ spec: { postgresql: { parameters: { wal_keep_size: value } } } })],
        ].flat(),
      );
    // The primary keeps no WAL for standbys beyond what its checkpoints need (no slots).
    setWalKeep("0");
    const primaryPod = pod(before.currentPrimary!)!;
    const superuser = superuserAt(ha.ns, DB, primaryPod);
    await waitFor(
      "wal_keep_size 0 on the primary",
      () => setting(primaryPod, "wal_keep_size") === "0",
      {
        timeoutMs: 60_000,
      },
    );
    const pids = postgresPids(frozenUid);
    const t0 = Date.now();
    signalEach(pids, "SIGSTOP");
    try {
      // More WAL than the standby has, then two checkpoints: the segments it needs next go.
      for (let i = 0; i < 4; i++)
        psql(superuser, "select pg_switch_wal(), pg_sleep(0.2), txid_current()");
      psql(superuser, "checkpoint");
      psql(superuser, "checkpoint");
    } finally {
      signalEach(pids, "SIGCONT");
    }
    setWalKeep(null);
    // It runs and answers, but cannot stream: the operator clones it again (a new pod).
    await waitFor(`${replica} repaired`, () => pod(replica)?.metadata.uid !== frozenUid, {
      timeoutMs: 180_000,
    });
    await settle("a replica frozen while its WAL was recycled", t0);
    expect(status().currentPrimary).toBe(before.currentPrimary);
    const repairs = list("event", ha.ns).filter(
      e => e.reason === "ReplicaRepair" && String(e.message).startsWith(`${replica} answers`),
    );
    expect(repairs.length).toBeGreaterThan(0);
  }, 600_000);

  it("fences a replica promoted by hand: it comes back as a standby", async () => {
    const before = status();
    const replica = before.instances!.find(i => i.role === "replica")!.name;
    const uid = pod(replica)!.metadata.uid;
    const t0 = Date.now();
    expect(psql(superuserAt(ha.ns, DB, pod(replica)!), "select pg_promote()")).toBe("t");
    await waitFor(`${replica}'s pod replaced`, () => pod(replica)?.metadata.uid !== uid, {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    // Two writable instances from the promotion until the fence: 3 s of probes, then the pod's
    // 1 s grace period, on top of a probe round and a pass.
    await settle("a replica promoted by hand (second primary)", t0, {
      injected: { name: replica, withinMs: 15_000 },
    });
    expect(status().currentPrimary).toBe(before.currentPrimary);
    expect(status().instances!.find(i => i.name === replica)).toMatchObject({
      role: "replica",
      streaming: true,
    });
  }, 600_000);

  it("puts the superuser Secret back when it is deleted under load", async () => {
    const before = status().currentPrimary;
    const password = get("secret", ha.ns, `${DB}-superuser`)!.data!.password;
    const t0 = Date.now();
    kubectlOk(["delete", "secret", `${DB}-superuser`, "-n", ha.ns]);
    await waitFor(
      "the superuser Secret back with its password",
      () => get("secret", ha.ns, `${DB}-superuser`)?.data?.password === password,
      { timeoutMs: 60_000 },
    );
    await settle("superuser Secret deleted", t0);
    expect(status().currentPrimary).toBe(before);
  }, 600_000);

  it("clones pod 0 again when its data directory is lost, the others intact", async () => {
    const before = pod(`${DB}-0`)!;
    const restarts = restartCount(before);
    const pid = postmasterPid(before.metadata.uid!);
    const data = `/proc/${pid}/root${PGDATA}`;
    const t0 = Date.now();
    // The volume's content is gone (renamed out of PGDATA's way), then postgres dies: the
    // container restarts on an empty data directory, as on a new volume.
    renameSync(data, `${data}.lost-in-test`);
    process.kill(pid, "SIGKILL");
    await waitFor(
      `${DB}-0 restarted`,
      () => {
        const now = pod(`${DB}-0`);
        return !!now && (now.metadata.uid !== before.metadata.uid || restartCount(now) > restarts);
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const log = (): string =>
      kubectl(["logs", "-n", ha.ns, `${DB}-0`, "--limit-bytes=1000000"]).stdout;
    await waitFor(
      `${DB}-0 to clone`,
      () => log().includes("clones a primary and never initialises an empty one"),
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    await waitFor("a write acknowledged after the loss", () => ha.load.recoveredAfter(t0), {
      timeoutMs: 300_000,
    });
    await settle("pod 0's data directory lost", t0);
    expect(log()).not.toContain("Initialising a new database cluster");
  }, 600_000);
});
