/**
 * bench/fleet (issue 29, goal 6): a real-PostgreSQL scale point. DATABASES (20) Databases of 3
 * instances, failover on, the operator installed by `pepr deploy` at its defaults, all on the
 * local node. Prints, and writes as JSON (bench/lib/result.ts):
 * - how long until every Database was Ready with every replica streaming;
 * - at rest, for REST_SECONDS (120): the leading watcher's CPU (its pod's cgroup) and the node
 *   process's RSS (current and peak), the other watcher's CPU;
 * - probe cost: the instances' CPU (their pods' cgroups, exited backends included) at rest with
 *   the operator probing, then for as long with the watchers scaled to zero: the difference is
 *   what the probes cost the servers; the leader's CPU per instance is what they cost it;
 * - one Database's failovers (FAULTS, FAILOVERS each: pod deleted, postmaster SIGKILLed) under
 *   the acknowledging write load of bench/failover, while every other Database takes RATE
 *   inserts/s (5) through its own `<db>-rw` (writers.ts): p50/p95/max from the fault to the first
 *   write the recovered primary acknowledged, and acknowledged rows lost.
 * Figures, not pass/fail. Run through bench/fleet.sh (npm run bench:fleet) on an otherwise idle
 * machine. BENCH_SMOKE=1 (or --smoke): 2 Databases of 2 instances, 5 s windows, one deletion.
 */
import { installCrd, database, freshNamespace } from "../../test/integration/harness/fixtures";
import { get, kubectlOk } from "../../test/integration/harness/kubectl";
import { waitFor } from "../../test/integration/harness/wait";
import { Load } from "../../test/e2e/load";
import { missingAcknowledgedRows } from "../../test/e2e/load/rows";
import { appCredentials, psql } from "../../test/e2e/psql";
import {
  OPERATOR_NAMESPACE,
  awaitLeader,
  awaitRollout,
  watcherPods,
} from "../../test/e2e/installed-operator";
import { podProcesses } from "../../test/e2e/load";
import { isHealthy, runFault, statusOf } from "../failover/measure";
import { parseFaults } from "../failover/faults";
import { summarize } from "../report/failover";
import type { FleetFigures, FleetParameters, WatcherUsage } from "../report/fleet";
import { removeNamespace, requireQuietCluster } from "../lib/namespaces";
import { startOperator } from "../lib/placement";
import { podCpuSeconds } from "../lib/pod-usage";
import { memoryOf } from "../lib/process";
import { isSmoke, runStart, saveResult } from "../lib/result";
import { runMain } from "../lib/main";
import { sleep } from "../../test/integration/harness/wait";
import { BackgroundLoad } from "./background-load";

const SMOKE = isSmoke();
const DATABASES = Number(process.env.DATABASES ?? (SMOKE ? 2 : 20));
const INSTANCES = Number(process.env.INSTANCES ?? (SMOKE ? 2 : 3));
const REST_SECONDS = Number(process.env.REST_SECONDS ?? (SMOKE ? 5 : 120));
const RATE = Number(process.env.RATE ?? 5);
const FAILOVERS = Number(process.env.FAILOVERS ?? (SMOKE ? 1 : 10));
/** Databases created at a time, each batch awaited healthy before the next (a fleet grows so). */
const CREATE_BATCH = Number(process.env.CREATE_BATCH ?? 4);
const FAULT_RUNS = parseFaults(process.env.FAULTS ?? (SMOKE ? "delete" : "delete,kill"), FAILOVERS);
const WATCHER = "pepr-pgkeeper-watcher";
const names = Array.from({ length: DATABASES }, (_, i) => `db-${i}`);

const uidOf = (ns: string, pod: string): string => get("pod", ns, pod)!.metadata.uid!;

/** Every instance pod of the fleet, by UID. */
function instanceUids(ns: string): string[] {
  const list = JSON.parse(
    kubectlOk(["get", "pods", "-n", ns, "-l", "pgkeeper.dev/database", "-o", "json"]),
  ) as { items: { metadata: { uid: string } }[] };
  return list.items.map(p => p.metadata.uid);
}

const instancesCpu = (uids: string[]): number =>
  uids.reduce((sum, uid) => sum + podCpuSeconds(uid, "postgres"), 0);

/** A watcher's CPU (its pod's cgroup) and its node process's memory. */
function watcherUsage(pod: string): {
  cpu: () => number;
  memory: () => { rssMiB: number; peakMiB: number };
} {
  const uid = uidOf(OPERATOR_NAMESPACE, pod);
  const [node] = podProcesses(uid, "node");
  if (!node) throw new Error(`no node process in watcher pod ${pod}`);
  return {
    cpu: () => podCpuSeconds(uid, "node"),
    memory: () => memoryOf(node.pid) ?? { rssMiB: NaN, peakMiB: NaN },
  };
}

/** Every Database of `dbs` healthy; how long it took from `t0`, in seconds. */
async function allHealthy(ns: string, dbs: string[], t0: number): Promise<number> {
  await waitFor(
    `${dbs.join(", ")} healthy`,
    () => dbs.every(db => isHealthy(statusOf(ns, db), INSTANCES)),
    { timeoutMs: 900_000, intervalMs: 5000 },
  );
  return (Date.now() - t0) / 1000;
}

/**
 * Failovers the operator started in the namespace so far: its FailoverStarted Events, each counted
 * as often as it was recorded (the apiserver folds a repeated message into one Event's count).
 */
const failoversStarted = (ns: string): number =>
  (
    JSON.parse(
      kubectlOk([
        "get",
        "event",
        "-n",
        ns,
        "--field-selector",
        "reason=FailoverStarted",
        "-o",
        "json",
      ]),
    ) as { items: { count?: number }[] }
  ).items.reduce((n, e) => n + (e.count ?? 1), 0);

/**
 * Runs of an instance's probe silence the watchers did not count (ADR 0038): their "Probe silence
 * not counted" log lines, one per instance and run.
 */
function silencesDiscounted(): number {
  const pods = kubectlOk([
    ...["get", "pods", "-n", OPERATOR_NAMESPACE, "-o", "name"],
    ...["-l", "pepr.dev/controller=watcher"],
  ])
    .split("\n")
    .filter(Boolean);
  return pods
    .map(pod => kubectlOk(["logs", "-n", OPERATOR_NAMESPACE, pod, "-c", "watcher"]))
    .reduce(
      (n, log) => n + log.split("\n").filter(l => l.includes("Probe silence not counted")).length,
      0,
    );
}

/** The fleet, CREATE_BATCH Databases at a time; seconds until the last batch was healthy. */
async function createFleet(ns: string): Promise<number> {
  const t0 = Date.now();
  for (let i = 0; i < names.length; i += CREATE_BATCH) {
    const batch = names.slice(i, i + CREATE_BATCH);
    for (const db of batch)
      kubectlOk(["create", "-f", "-"], JSON.stringify(database(ns, db, { instances: INSTANCES })));
    const took = await allHealthy(ns, batch, Date.now());
    console.log(
      `${batch.join(", ")} healthy after ${took.toFixed(0)} s; failovers started so far: ${failoversStarted(ns)}`,
    );
  }
  return (Date.now() - t0) / 1000;
}

/** The operator and the instances over REST_SECONDS with nothing happening. */
async function atRest(ns: string): Promise<FleetFigures["rest"]> {
  const uids = instanceUids(ns);
  const leader = await awaitLeader();
  const follower = watcherPods().find(p => p !== leader);
  const lead = watcherUsage(leader);
  const other = follower ? watcherUsage(follower) : undefined;
  instancesCpu(uids); // finds each pod's cgroup (a scan of /proc) before the window starts
  const [lead0, other0, servers0] = [lead.cpu(), other?.cpu(), instancesCpu(uids)];
  await sleep(REST_SECONDS * 1000);
  const leaderFigures: WatcherUsage = { cpuSeconds: lead.cpu() - lead0, ...lead.memory() };
  const instancesProbed = instancesCpu(uids) - servers0;
  const followerCpu = other && other0 !== undefined ? other.cpu() - other0 : null;

  // The same window with no watcher at all: what the instances cost without being probed.
  kubectlOk(["scale", "deployment", WATCHER, "-n", OPERATOR_NAMESPACE, "--replicas=0"]);
  await waitFor("no watcher pod", () => watcherPods().length === 0, { timeoutMs: 120_000 });
  const quiet0 = instancesCpu(uids);
  await sleep(REST_SECONDS * 1000);
  const instancesUnprobed = instancesCpu(uids) - quiet0;
  kubectlOk(["scale", "deployment", WATCHER, "-n", OPERATOR_NAMESPACE, "--replicas=2"]);
  await awaitRollout();
  await awaitLeader();
  return {
    seconds: REST_SECONDS,
    instances: uids.length,
    leader: leaderFigures,
    followerCpuSeconds: followerCpu,
    instancesCpuSeconds: instancesProbed,
    instancesUnprobedCpuSeconds: instancesUnprobed,
  };
}

/** db-0's failovers under the load, the others writing in the background. */
async function failovers(ns: string, figures: FleetFigures, saved: () => void): Promise<void> {
  const [db, ...others] = names;
  const creds = appCredentials(ns, db);
  await waitFor("SQL", () => psql(creds, "select 1") === "1", { timeoutMs: 60_000 });
  psql(creds, "create table load (id bigint primary key, at timestamptz default now())");
  const background = new BackgroundLoad(ns, others, RATE);
  const load = new Load(ns, db);
  background.start();
  load.start();
  const started = Date.now();
  try {
    await waitFor("writes", () => load.acknowledged() > 20, { timeoutMs: 60_000 });
    const saveWithBackground = () => {
      figures.background = { ...background.counts(), seconds: (Date.now() - started) / 1000 };
      saved();
    };
    for (const run of FAULT_RUNS)
      await runFault(
        { ns, db, load, instances: INSTANCES },
        run,
        figures.failovers,
        saveWithBackground,
      );
  } finally {
    await load.stop();
    await background.stop();
  }
  figures.background = { ...background.counts(), seconds: (Date.now() - started) / 1000 };
  const rows = await missingAcknowledgedRows(creds, "load", load.acknowledgedRanges(), 120_000);
  figures.rows = { acknowledged: rows.acknowledged, lost: rows.missing };
}

async function main(): Promise<void> {
  const start = runStart();
  await installCrd();
  await requireQuietCluster();
  const operator = await startOperator("cluster", "bench-fleet");
  const parameters: FleetParameters = {
    databases: DATABASES,
    instances: INSTANCES,
    restSeconds: REST_SECONDS,
    rate: RATE,
    counts: Object.fromEntries(FAULT_RUNS.map(r => [r.fault, r.count])),
    probe: {
      intervalMs: operator.config.probeIntervalMs,
      timeoutMs: operator.config.probeTimeoutMs,
      failureThreshold: operator.config.probeFailureThreshold,
    },
  };
  const ns = freshNamespace("bench-fleet");
  const figures: FleetFigures = {
    readySeconds: 0,
    createBatch: CREATE_BATCH,
    failoversWhileCreating: 0,
    failoversAtRest: null,
    rest: null,
    failovers: [],
    background: null,
    rows: null,
  };
  const saved = () => {
    if (!SMOKE && figures.rest) saveResult("fleet", start, parameters, figures, SMOKE);
  };
  try {
    figures.readySeconds = await createFleet(ns);
    figures.failoversWhileCreating = failoversStarted(ns);
    figures.silencesDiscounted = silencesDiscounted();
    console.log(
      `${DATABASES} Databases of ${INSTANCES} instances healthy after ${figures.readySeconds.toFixed(0)} s`,
    );
    figures.rest = await atRest(ns);
    console.log(`at rest: ${JSON.stringify(figures.rest)}`);
    await allHealthy(ns, names, Date.now());
    figures.failoversAtRest = failoversStarted(ns) - figures.failoversWhileCreating;
    saved();
    await failovers(ns, figures, saved);
    console.log("\n=== bench/fleet: one Database's failovers while the others write ===");
    for (const f of figures.failovers) console.log(summarize(f));
    console.log(`acknowledged rows lost: ${figures.rows?.lost} of ${figures.rows?.acknowledged}`);
    saveResult("fleet", start, parameters, figures, SMOKE);
  } finally {
    await removeNamespace(ns);
    await operator.stop();
  }
}

runMain(main);
