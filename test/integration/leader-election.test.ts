/**
 * Two operator processes against the real apiserver: one leads (holds the Lease) and reconciles,
 * the other stands by with warm watches. kill -9 the leader: the standby takes over within the
 * lease duration plus a few seconds and converges a Database created meanwhile. Nobody acts
 * twice: the Lease counts one transition, every Event names the instance that wrote it, and the
 * standby's reconcile histogram stays at zero until it leads.
 */
import { database, freshNamespace, installCrd } from "./harness/fixtures";
import { Obj, create, get, kubectlOk } from "./harness/kubectl";
import { removeWebhooks } from "./harness/operator";
import { waitFor } from "./harness/wait";
import { Watcher, buildWatcher, ensurePeprPrerequisites } from "./harness/watcher";

const LEASE = "pgkeeper-leader";
const LEASE_DURATION_S = 15; // the defaults (CloudNativePG's): 15 s lease, 10 s deadline, 2 s retry
const RECONCILES = "pgkeeper_reconcile_duration_seconds_count";

let ns: string;
let a: Watcher;
let b: Watcher;

type Lease = { spec?: { holderIdentity?: string; leaseTransitions?: number } };
const lease = (): Lease["spec"] => (get("lease", ns, LEASE) as Lease | undefined)?.spec;

type Event = {
  reason: string;
  reportingInstance?: string;
  source?: { host?: string };
  involvedObject: { name: string };
  firstTimestamp?: string;
};
const eventsOf = (name: string): Event[] =>
  (
    JSON.parse(
      kubectlOk([
        "get",
        "events",
        "-n",
        ns,
        "--field-selector",
        `involvedObject.kind=Database,involvedObject.name=${name}`,
        "-o",
        "json",
      ]),
    ) as { items: Event[] }
  ).items;

const converged = (name: string, timeoutMs: number): Promise<Obj> =>
  waitFor(
    `${name} to be reconciled`,
    () => {
      const db = get("database", ns, name);
      const status = db?.status as
        | { observedGeneration?: number; conditions?: { type: string; status: string }[] }
        | undefined;
      const ok = status?.conditions?.some(c => c.type === "Reconciled" && c.status === "True");
      return db && status?.observedGeneration === db.metadata.generation && ok ? db : undefined;
    },
    { timeoutMs },
  );

beforeAll(async () => {
  await installCrd();
  removeWebhooks(); // no pepr dev here: watchers serve no admission
  ensurePeprPrerequisites();
  ns = freshNamespace("le");
  buildWatcher();
  const leaseEnv = { PGKEEPER_LEASE_NAMESPACE: ns, PGKEEPER_LEASE_NAME: LEASE };
  a = new Watcher("le-a", leaseEnv);
  b = new Watcher("le-b", leaseEnv);
  await a.start();
  await waitFor("le-a to lead", async () => (await a.metric("pgkeeper_leader")) === 1, {
    timeoutMs: 30_000,
  });
  await b.start();
}, 180_000);

afterAll(async () => {
  await a?.stop("SIGKILL");
  await b?.stop("SIGKILL");
  if (ns) kubectlOk(["delete", "namespace", ns, "--wait=false"]);
}, 60_000);

describe("leader election with two operator processes", () => {
  it("only the leader reconciles; its histogram moves, the standby's does not", async () => {
    expect(lease()).toMatchObject({ holderIdentity: "le-a", leaseTransitions: 0 });
    expect(await b.metric("pgkeeper_leader")).toBe(0);
    const before = await a.metric(RECONCILES);

    create(database(ns, "first"));
    await converged("first", 60_000);

    expect(await a.metric(RECONCILES)).toBeGreaterThan(before);
    expect(
      await a.metric("pgkeeper_reconcile_duration_seconds_bucket", 'le="+Inf"'),
    ).toBeGreaterThan(before);
    expect(await b.metric(RECONCILES)).toBe(0); // warm watches, no action
    const reporters = new Set(eventsOf("first").map(e => e.reportingInstance));
    expect([...reporters]).toEqual(["le-a"]);
    expect(eventsOf("first").every(e => e.source?.host === "le-a")).toBe(true);
  });

  it("kill -9 the leader: the standby takes over within the lease duration + a few seconds and converges a Database created meanwhile", async () => {
    const transitions = lease()?.leaseTransitions ?? 0;
    expect(await b.metric(RECONCILES)).toBe(0);
    const killedAt = Date.now();
    await a.stop("SIGKILL");
    create(database(ns, "second"));

    await waitFor("le-b to hold the Lease", () => lease()?.holderIdentity === "le-b", {
      timeoutMs: (LEASE_DURATION_S + 15) * 1000,
      intervalMs: 250,
    });
    const takeoverS = (Date.now() - killedAt) / 1000;
    // Not before the lease could expire, and not much after (retry period + polling).
    expect(takeoverS).toBeGreaterThan(LEASE_DURATION_S - 3);
    expect(takeoverS).toBeLessThan(LEASE_DURATION_S + 6);
    expect(lease()?.leaseTransitions).toBe(transitions + 1);

    await converged("second", 60_000);
    expect(await b.metric("pgkeeper_leader")).toBe(1);
    expect(await b.metric(RECONCILES)).toBeGreaterThan(0);
    // The Database created while nobody led was converged by the new leader alone.
    const reporters = new Set(eventsOf("second").map(e => e.reportingInstance));
    expect([...reporters]).toEqual(["le-b"]);
    // Every Event le-a wrote predates the kill (it never acted after losing the lease).
    const late = [...eventsOf("first"), ...eventsOf("second")].filter(
      e => e.reportingInstance === "le-a" && Date.parse(e.firstTimestamp ?? "") > killedAt + 1000,
    );
    expect(late).toEqual([]);
    // And the new leader keeps the first Database converged too (it knew it from its watch).
    const first = get("database", ns, "first");
    expect((first?.status as { observedGeneration?: number }).observedGeneration).toBe(
      first?.metadata.generation,
    );
    console.log(`leader election: takeover after kill -9 in ${takeoverS.toFixed(1)} s`);
  }, 120_000);
});
