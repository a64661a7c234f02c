/**
 * The fault matrix in production shape: a 3-instance quorum Database under the write load, with
 * the operator as `pepr deploy` installed it (two watchers, leader election). The leading
 * operator's process SIGKILLed; the primary's faults (ha/primary-faults.ts); then two operator
 * upgrades: build N+1 changes no instance template (no PostgreSQL pod restarts, leadership moves
 * once, the leader's pod last), build N+2 does (the instances roll one at a time, replicas first,
 * the primary by switchover). Each is a row of the fault matrix. Registered by in-cluster.test.ts,
 * which deployed build N.
 */
import { equals } from "ramda";
import { get, list } from "../../integration/harness/kubectl";
import { waitFor } from "../../integration/harness/wait";
import { diagnosis } from "../diagnosis";
import { primaryFaults } from "../ha/primary-faults";
import { DB, quorumDatabaseUnderLoad, restartCount } from "../ha/quorum-under-load";
import {
  OPERATOR_NAMESPACE,
  awaitLeader,
  awaitRollout,
  deploy,
  inTheCluster,
  leaseHolder,
  leaseTransitions,
  watcherLogFile,
} from "../installed-operator";
import { podProcesses } from "../load";
import { NEXT_BUILD_ANNOTATION, templateChangingCheckout } from "./next-build";

/** The Events the operator recorded since `t0` (whole seconds), as "reason: message". */
const eventsSince = (ns: string, t0: number): string[] =>
  list("event", ns)
    .filter(e => {
      const created = (e.metadata as { creationTimestamp?: string }).creationTimestamp;
      return Date.parse(created ?? "") >= t0 - 1000;
    })
    .map(e => `${String(e.reason)}: ${String(e.message).slice(0, 160)}`);

/** Registers the suite; `image` is the controller image every build runs. */
export function underLoadInTheCluster(image: string): void {
  const ha = quorumDatabaseUnderLoad("in-cluster", inTheCluster());
  const { status, podsOf, settle, rollout } = ha;
  /** Each instance pod's uid and restart count: what a restart would change. */
  const instances = (): Record<string, string> =>
    Object.fromEntries(
      podsOf().map(p => [p.metadata.name, `${p.metadata.uid} ${restartCount(p)}`]),
    );
  /** The pods are as before, or the diagnosis says what happened to them. */
  const expectUnchanged = (before: Record<string, string>): void => {
    const after = instances();
    if (!equals(after, before)) console.log(diagnosis(ha.ns, DB, watcherLogFile()));
    expect(after).toEqual(before);
  };

  it("goes on when the leading operator's process is SIGKILLed: a watcher leads again and carries out a switchover", async () => {
    const leader = await awaitLeader();
    const uid = get("pod", OPERATOR_NAMESPACE, leader)!.metadata.uid!;
    const processes = podProcesses(uid, "node");
    expect(processes.length).toBeGreaterThan(0);
    const pods = instances();
    const t0 = Date.now();
    for (const p of processes) process.kill(p.pid, "SIGKILL");
    // The Lease is not released: the other watcher takes it once it expires (15 s), unless the
    // restarted container renews it first under the same identity (its pod name). Either leads.
    await waitFor(
      "a running watcher renewing the Lease after the kill",
      () => {
        const lease = get("lease", OPERATOR_NAMESPACE, "pgkeeper-leader")?.spec as
          | { renewTime?: string }
          | undefined;
        return !!leaseHolder() && Date.parse(lease?.renewTime ?? "") > t0 + 1000;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    expectUnchanged(pods); // nothing happened to PostgreSQL
    // Right after taking over, the new leader may not have probed the instances yet: the request
    // must wait for them, not be refused on what is unknown (the CI failure of stop 36).
    await ha.switchOverTo(status().instances!.find(i => i.role === "replica")!.name);
    await settle("the leading operator's process SIGKILLed, then a switchover", t0);
  }, 600_000);

  primaryFaults(ha);

  it("deploying build N+1 (no instance template change) restarts no PostgreSQL pod and moves leadership once", async () => {
    const pods = instances();
    const leaderBefore = await awaitLeader();
    const transitionsBefore = leaseTransitions();
    const t0 = Date.now();
    // An operator setting the build copies into both Deployments (the default's meaning, so no
    // instance spec changes), which rolls them.
    await deploy(image, { PGKEEPER_POSTGRES_VERSIONS: "15,17,18" }, "upgrade-n1");
    await awaitRollout();
    const leaderAfter = await awaitLeader();
    await settle("operator upgraded, no instance template change", t0);
    expect(leaderAfter).not.toBe(leaderBefore); // the leader's pod was replaced, last
    expect(leaseHolder()).toBe(leaderAfter);
    expect(leaseTransitions() - transitionsBefore).toBe(1);
    expectUnchanged(pods);
  }, 900_000);

  it("deploying build N+2 (a new instance template) rolls the instances one at a time, replicas first, the primary by switchover", async () => {
    const next = templateChangingCheckout();
    try {
      const primary = status().currentPrimary!;
      const t0 = Date.now();
      let deployed: Promise<void> | undefined;
      const rolling = rollout(
        "every instance on build N+2's pod template",
        () => {
          deployed = deploy(image, {}, "upgrade-n2", next.dir);
        },
        () =>
          podsOf().every(p => p.metadata.annotations?.[NEXT_BUILD_ANNOTATION] === "n+2") &&
          (status().instances ?? []).every(i => i.ready),
        900_000,
      );
      // A failed deploy fails the test at once, not when the rollout's wait times out.
      const [{ maxDown, restartedOrder }] = await Promise.all([rolling, deployed!]);
      await settle("operator upgraded to a new instance template (rolling)", t0);
      // One expectation over everything the rollout saw: a failure prints it all (a CI run
      // failed here and its truncated log did not say which of these it was).
      const primaryAfter = status().currentPrimary;
      expect({
        neverTwoDown: maxDown <= 1,
        everyInstanceOnce: restartedOrder.length === 3,
        primaryLast: restartedOrder[2] === primary,
        primaryMoved: primaryAfter !== primary,
        seen: { maxDown, restartedOrder, primary, primaryAfter, events: eventsSince(ha.ns, t0) },
      }).toMatchObject({
        neverTwoDown: true,
        everyInstanceOnce: true,
        primaryLast: true,
        primaryMoved: true,
      });
    } finally {
      next.remove();
    }
  }, 1_200_000);
}
