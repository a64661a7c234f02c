/**
 * Planned operations under a continuous write load: a switchover on request, the StatefulSet
 * deleted by hand (recreated over the same volumes), a reloadable parameter (no restart), a
 * restart-only one rolled out (primary last) and lowered (primary first, in place), an image change
 * (a minor upgrade: replicas first, then a switchover), a rolling restart on request (the
 * pgkeeper.dev/restart annotation), scaling below
 * the primary's ordinal; and scaling a Database 1 → 3 → 2.
 * The frame (Database, load, checks, fault matrix) is ha/quorum-under-load.ts.
 */
import { database } from "../integration/harness/fixtures";
import { Obj, create, get, kubectlOk, list } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { readFileSync } from "node:fs";
import { operatorLogFile } from "./diagnosis";
import { eventsSince } from "./ha/events";
import { DB, quorumDatabaseUnderLoad, restartCount } from "./ha/quorum-under-load";
import { freezePod } from "./load/pod-freezer";
import { appCredentials, psql, superuserAt } from "./psql";
import { nextPostgres15Image } from "./registry";

const ha = quorumDatabaseUnderLoad("ha-operations");
const {
  status,
  pod,
  podsOf,
  healthy,
  primaryOn,
  switchOverTo,
  settle,
  rollout,
  setting,
  postmasterStart,
} = ha;

/** Merges `spec` into Database `name`'s spec. */
const patchSpec = (name: string, spec: object): void =>
  void kubectlOk([
    ...["patch", "database", name, "-n", ha.ns, "--type=merge", "-p"],
    JSON.stringify({ spec }),
  ]);

describe("planned operations of a 3-instance Database in quorum mode under write load", () => {
  /**
   * Sets max_connections (work_mem stays as the previous test left it) and samples readiness
   * while the rollout runs, until every instance runs the value and nothing is pending.
   */
  async function rollOutMaxConnections(
    value: string,
  ): Promise<{ maxDown: number; restartedOrder: string[] }> {
    return rollout(
      `max_connections = ${value} on every instance, nothing pending`,
      () =>
        patchSpec(DB, { postgresql: { parameters: { work_mem: "12MB", max_connections: value } } }),
      () =>
        (status().pendingRestart ?? []).length === 0 &&
        podsOf().every(p => setting(p, "max_connections") === value),
    );
  }

  it("switches over on request with no loss and rejoins the old primary", async () => {
    const before = status();
    const target = before.instances!.find(i => i.role === "replica")!.name;
    const t0 = Date.now();
    await switchOverTo(target);
    await settle("switchover requested", t0);
    // Rejoined on its first start: no crash loop, no re-clone.
    expect(restartCount(pod(before.currentPrimary!)!)).toBe(0);
    const db = get("database", ha.ns, DB)!;
    expect(db.metadata.annotations?.["pgkeeper.dev/switchover-to"]).toBeUndefined();
  }, 600_000);

  it("comes back from `kubectl delete sts` on the same volumes: the StatefulSet recreated, nothing lost", async () => {
    // Each instance's data claim by name, with its uid: a recreated claim would be a new volume.
    const dataClaims = (): Record<string, string> =>
      Object.fromEntries(
        list("pvc", ha.ns, `pgkeeper.dev/database=${DB}`)
          .filter(c => /^pgdata-ha-\d+$/.test(c.metadata.name))
          .map(c => [c.metadata.name, String(c.metadata.uid)]),
      );
    const claims = dataClaims();
    expect(Object.keys(claims)).toHaveLength(3);
    const statefulSet = get("statefulset", ha.ns, DB)!.metadata.uid;
    const t0 = Date.now();
    // What someone expecting the operator to recreate it types: a background cascade, whose
    // garbage collection deletes the pods, and (before pgkeeper owned the claims) the data.
    kubectlOk(["delete", "statefulset", DB, "-n", ha.ns, "--wait=false"]);
    await waitFor("the StatefulSet recreated", () => {
      const uid = get("statefulset", ha.ns, DB)?.metadata.uid;
      return uid !== undefined && uid !== statefulSet;
    });
    await settle("StatefulSet deleted (kubectl delete sts)", t0);
    expect(dataClaims()).toEqual(claims);
  }, 600_000);

  it("applies a reloadable parameter on every instance without restarting any", async () => {
    const before = podsOf().map(p => ({
      name: p.metadata.name,
      uid: p.metadata.uid,
      restarts: restartCount(p),
      started: postmasterStart(p),
    }));
    patchSpec(DB, { postgresql: { parameters: { work_mem: "12MB" } } });
    for (const p of podsOf())
      await waitFor(`work_mem on ${p.metadata.name}`, () => setting(p, "work_mem") === "12MB", {
        timeoutMs: 60_000,
      });
    const after = podsOf().map(p => ({
      name: p.metadata.name,
      uid: p.metadata.uid,
      restarts: restartCount(p),
      started: postmasterStart(p),
    }));
    expect(after).toEqual(before);
    expect(status().pendingRestart ?? []).toEqual([]);
  }, 300_000);

  it("rolls a restart-only parameter out one instance at a time, primary last", async () => {
    const primary = status().currentPrimary!;
    const t0 = Date.now();
    const { maxDown, restartedOrder } = await rollOutMaxConnections("120");
    await settle("restart-only parameter raised (rolling, primary last)", t0);
    expect(maxDown).toBeLessThanOrEqual(1); // never two instances down at once
    expect(restartedOrder).toHaveLength(3);
    expect(restartedOrder[2]).toBe(primary);
    expect(status().currentPrimary).not.toBe(primary);
  }, 600_000);

  it("lowers a limit standbys must match: the primary restarts first, in place, no switchover", async () => {
    const primary = status().currentPrimary!;
    const t0 = Date.now();
    const { maxDown, restartedOrder } = await rollOutMaxConnections("110");
    await settle("restart-only parameter lowered (primary first, in place)", t0);
    expect(maxDown).toBeLessThanOrEqual(1);
    expect(restartedOrder).toHaveLength(3);
    expect(restartedOrder[0]).toBe(primary);
    expect(status().currentPrimary).toBe(primary);
  }, 600_000);

  it("upgrades by image change: replicas first, then a switchover, never two down, nothing lost", async () => {
    const primary = status().currentPrimary!;
    const image = nextPostgres15Image();
    const runs = (p: Obj): string | undefined =>
      (p.spec?.containers as { name: string; image: string }[] | undefined)?.find(
        c => c.name === "postgres",
      )?.image;
    // What the node runs, from the kubelet: the second tag is another build (one more label).
    const imageIdOf = (p: Obj): string | undefined =>
      (p.status?.containerStatuses as { name: string; imageID: string }[] | undefined)?.find(
        c => c.name === "postgres",
      )?.imageID;
    const before = podsOf().map(imageIdOf);
    expect(new Set(before).size).toBe(1);
    const t0 = Date.now();
    const { maxDown, restartedOrder } = await rollout(
      `every instance running ${image}`,
      () => patchSpec(DB, { image }),
      () => podsOf().every(p => runs(p) === image),
    );
    await settle("image changed (a minor upgrade)", t0);
    expect(maxDown).toBeLessThanOrEqual(1); // never two instances down at once
    expect(restartedOrder).toHaveLength(3);
    expect(restartedOrder[2]).toBe(primary); // replicas first, the old primary last
    expect(status().currentPrimary).not.toBe(primary); // after a switchover
    expect(status().instances?.map(i => i.image)).toEqual([image, image, image]);
    const after = podsOf().map(imageIdOf);
    expect(new Set(after).size).toBe(1);
    expect(after[0]).toBeDefined();
    expect(after[0]).not.toBe(before[0]);
  }, 600_000);

  it("restarts every instance on request: replicas first, then a switchover, the annotation removed", async () => {
    const primary = status().currentPrimary!;
    const startedBefore = new Map(podsOf().map(p => [p.metadata.name, postmasterStart(p)]));
    const annotation = (): string | undefined =>
      get("database", ha.ns, DB)?.metadata.annotations?.["pgkeeper.dev/restart"];
    const t0 = Date.now();
    const { maxDown, restartedOrder } = await rollout(
      "every PostgreSQL started again, the annotation gone",
      () =>
        void kubectlOk([
          ...["annotate", "database", DB, "-n", ha.ns, "pgkeeper.dev/restart=e2e-1"],
        ]),
      // PostgreSQL's own start time, not the pods': each server really started again.
      () =>
        annotation() === undefined &&
        podsOf().every(p => postmasterStart(p) !== startedBefore.get(p.metadata.name)),
    );
    await settle("rolling restart on request", t0);
    expect(maxDown).toBeLessThanOrEqual(1); // never two instances down at once
    expect(restartedOrder).toHaveLength(3);
    expect(restartedOrder[2]).toBe(primary); // replicas first, the old primary last
    expect(status().currentPrimary).not.toBe(primary); // after a switchover
    expect(status().restart).toMatchObject({ request: "e2e-1", phase: "Done" });
  }, 600_000);

  it("scales down below the primary's ordinal by switching over first", async () => {
    // Make the highest ordinal the primary, then scale it away.
    await primaryOn(2);
    const t0 = Date.now();
    patchSpec(DB, { instances: 2 });
    await settle("scaled 3 → 2 with the primary on the highest ordinal", t0, { instances: 2 });
    expect(status().currentPrimary).not.toBe(`${DB}-2`);
    await waitFor("pod ha-2 gone", () => pod(`${DB}-2`) === undefined, { timeoutMs: 120_000 });
    expect(get("pvc", ha.ns, `pgdata-${DB}-2`)).toBeDefined(); // retained for a scale back up
  }, 600_000);
});

describe("scaling a Database 1 → 3 → 2", () => {
  it("clones new replicas that stream, then removes the highest one", async () => {
    create(database(ha.ns, "grow"));
    await healthy("grow", 1, 300_000);
    const creds = appCredentials(ha.ns, "grow");
    psql(creds, "create table t as select g from generate_series(1, 500) g");
    patchSpec("grow", { instances: 3 });
    await healthy("grow", 3, 420_000);
    for (const p of podsOf("grow").filter(
      p => p.metadata.labels?.["pgkeeper.dev/role"] === "replica",
    ))
      await waitFor(`rows on ${p.metadata.name}`, () => count(p, "grow") === "500", {
        timeoutMs: 60_000,
      });
    patchSpec("grow", { instances: 2 });
    await healthy("grow", 2);
    await waitFor("pod grow-2 gone", () => pod("grow-2") === undefined, { timeoutMs: 120_000 });
    expect(psql(creds, "select count(*) from t")).toBe("500");
  }, 900_000);
});

/**
 * How long the node stays slow: three times what a failover on probes needs (3 failures 1 s
 * apart, each given 1.5 s), so a silence wrongly counted would show.
 */
const SLOW_FOR_MS = 3 * (3 * 1000 + 1500);

describe("a slow node is not a failed primary (ADR 0038)", () => {
  // After the scaling test: "grow" (two instances) and the suite's Database, on one node.
  it("fails nothing over while two Databases' primaries are silent and their replicas answer", async () => {
    const databases = [DB, "grow"];
    const instances = ha.status().instances!.length;
    const primaries = databases.map(d => ha.status(d).currentPrimary!);
    const startOf = (i: number) =>
      psql(
        superuserAt(ha.ns, databases[i], pod(primaries[i])!),
        "select pg_postmaster_start_time()",
      );
    const started = primaries.map((_, i) => startOf(i));
    const t0 = Date.now();
    const frozen = primaries.map(p => freezePod(pod(p)!.metadata.uid!));
    try {
      // Watched from the freeze on: a silence counted would start a failover within one span.
      const until = Date.now() + SLOW_FOR_MS;
      while (Date.now() < until) {
        expect(eventsSince(ha.ns, "FailoverStarted", t0)).toEqual([]);
        await new Promise(r => setTimeout(r, 500));
      }
      // And the operator said why (the log may be pretty-printed: the message alone is matched).
      const log = String(operatorLogFile(ha.operatorLog));
      await waitFor("the operator to call the silence the node's", () =>
        readFileSync(log, "utf8").includes(
          "went silent while others there answered: the node is slow",
        ),
      );
    } finally {
      frozen.forEach(f => f.thaw());
    }
    await settle("two Databases' primaries silent on a live node (slow node): no failover", t0, {
      instances,
    });
    await healthy("grow", 2);
    expect(eventsSince(ha.ns, "FailoverStarted", t0)).toEqual([]);
    // Asked of PostgreSQL: the same postmasters still run, as primaries.
    databases.forEach((d, i) => {
      expect(startOf(i)).toBe(started[i]);
      expect(psql(superuserAt(ha.ns, d, pod(primaries[i])!), "select pg_is_in_recovery()")).toBe(
        "f",
      );
    });
  }, 600_000);
});

const count = (p: Obj, db: string): string =>
  psql({ ...superuserAt(ha.ns, db, p), dbname: "app" }, "select count(*) from t");
