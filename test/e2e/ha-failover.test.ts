/**
 * Failover under a continuous write load (quorum mode, so every acknowledged row must survive),
 * with the operator as `pepr dev` on the host: the operator killed mid-failover; every pod deleted
 * at once; every standby lost mid-failover; a failover right after a password rotation. The
 * primary's own faults (pod deleted, SIGKILL, frozen, network cut) run against the operator as
 * installed in the cluster: in-cluster.test.ts, ha/primary-faults.ts.
 * The frame (Database, load, checks, fault matrix) is ha/quorum-under-load.ts.
 */
import { get, kubectlOk, list } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { Operator } from "../integration/harness/operator";
import { DB, onTheHost, quorumDatabaseUnderLoad, restartCount } from "./ha/quorum-under-load";
import { psql, superuserAt } from "./psql";

const operator = new Operator("e2e-ha-failover");
const ha = quorumDatabaseUnderLoad("ha-failover", onTheHost(operator));
const { status, podIp, podsOf, primaryOn, expectRecovery, settle } = ha;

describe("failover of a 3-instance Database in quorum mode under write load", () => {
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
    await operator.stop("SIGKILL");
    await operator.start();
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
