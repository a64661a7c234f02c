/**
 * Upgrading the operator under a running Database, as users do it: `pepr deploy` of build N, a
 * 3-instance quorum Database under the acknowledging writer, then `pepr deploy` of build N+1
 * (a changed operator setting, which rolls both Deployments and changes no instance spec). No
 * PostgreSQL pod restarts, no acknowledged row is lost, and leadership moves once (the leader's
 * pod goes last: leader/deletion-cost.ts).
 */
import { join } from "node:path";
import { env } from "../integration/harness/env";
import { database, freshNamespace, installCrd } from "../integration/harness/fixtures";
import { create, get, kubectl, list } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { healthy } from "./healthy";
import {
  OPERATOR_NAMESPACE,
  awaitLeader,
  awaitRollout,
  controllerImage,
  leaseHolder,
  removeDeployed,
  run,
} from "./installed-operator";
import { Load } from "./load";
import { missingAcknowledgedRows } from "./load/rows";
import { appCredentials, psql } from "./psql";
import { imageRepository } from "./registry";

const DB = "upg";
const IMAGE = controllerImage(imageRepository());
let ns = "";
let load: Load | undefined;

/** `pepr deploy` of this checkout, with `settings` in its environment (manifests.ts copies them). */
const deploy = (settings: Record<string, string>, label: string): void =>
  run(
    join(env.repo, "node_modules", ".bin", "pepr"),
    ["deploy", "--yes", "-i", IMAGE],
    300_000,
    label,
    settings,
  );

/** Each instance pod's uid and restart count. */
const instances = (): Record<string, string> =>
  Object.fromEntries(
    list("pod", ns, `pgkeeper.dev/database=${DB}`).map(p => [
      p.metadata.name,
      `${p.metadata.uid} ${((p.status?.containerStatuses ?? []) as { restartCount: number }[])
        .map(c => c.restartCount)
        .join(",")}`,
    ]),
  );
const transitions = (): number =>
  (get("lease", OPERATOR_NAMESPACE, "pgkeeper-leader")?.spec as { leaseTransitions?: number })
    .leaseTransitions ?? 0;

beforeAll(async () => {
  await installCrd();
  ns = freshNamespace("upgrade");
  deploy({}, "upgrade-n");
  await awaitRollout();
  await awaitLeader();
}, 900_000);

afterAll(async () => {
  await load?.stop();
  kubectl(["delete", "namespace", ns, "--wait=false"]);
  removeDeployed();
}, 300_000);

it("deploying build N+1 over a Database under load restarts no PostgreSQL pod, loses no acknowledged row, and moves leadership once", async () => {
  create(
    database(ns, DB, { instances: 3, postgresql: { synchronous: { mode: "quorum", number: 1 } } }),
  );
  await healthy(ns, DB, 3, undefined, 420_000);
  const creds = appCredentials(ns, DB);
  await waitFor("SQL through -rw", () => psql(creds, "select 1") === "1", { timeoutMs: 60_000 });
  psql(creds, "create table load (id bigint primary key, at timestamptz default now())");
  load = new Load(ns, DB);
  load.start();
  await waitFor("the first acknowledged writes", () => load!.acknowledged() > 20, {
    timeoutMs: 60_000,
  });
  const podsBefore = instances();
  const leaderBefore = await awaitLeader();
  const transitionsBefore = transitions();
  const t0 = Date.now();

  // Build N+1: an operator setting the build copies into both Deployments (same meaning as the
  // default, so no instance spec changes), which rolls them.
  deploy({ PGKEEPER_POSTGRES_VERSIONS: "15,17,18" }, "upgrade-n1");
  await awaitRollout();
  const leaderAfter = await awaitLeader();
  const writesAfter = load.acknowledged();
  await waitFor(
    "writes acknowledged after the upgrade",
    () => load!.acknowledged() > writesAfter + 20,
    {
      timeoutMs: 60_000,
    },
  );
  await load.stop();
  const check = await missingAcknowledgedRows(creds, "load", load.acknowledgedRanges());
  const figures = {
    seconds: Math.round((Date.now() - t0) / 1000),
    acknowledged: check.acknowledged,
    lost: check.missing,
    leaseTransitions: transitions() - transitionsBefore,
    longestGapMs: load.longestGap(t0, Date.now()),
  };
  console.log(`operator upgrade under load: ${JSON.stringify(figures)}`);
  expect(leaderAfter).not.toBe(leaderBefore); // the leader's pod was replaced, last
  expect(leaseHolder()).toBe(leaderAfter);
  expect(figures.leaseTransitions).toBe(1);
  expect(check.missing).toBe(0);
  expect(load.violations()).toEqual([]);
  expect(instances()).toEqual(podsBefore);
}, 900_000);
