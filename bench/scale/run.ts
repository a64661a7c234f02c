/**
 * bench/scale: N Databases (3 instances each) created at once on the local control plane with
 * fake kwok nodes (pods become Running/Ready without PostgreSQL). Prints, per run:
 * - time until all are reconciled (children applied, status.observedGeneration current) and
 *   until all are Ready; reconciles/s;
 * - apiserver requests per Database by verb: all clients (the apiserver's apiserver_request_total)
 *   and the operator's own (audit log, user pgkeeper-operator);
 * - GET/LIST per steady-state reconcile (resyncs during the idle window; goal 0);
 * - the operator's writes during the idle window (goal: none but Lease renewals);
 * - operator peak RSS (VmHWM; goal < 200 MiB at 1000).
 *
 * KEEP=1: the committed result's runs of sizes this run does not run stay in the table, each with
 * a footnote naming its run.
 *
 * Figures, not a test: nothing here fails on a missed goal; the figures are also written as JSON
 * (bench/lib/result.ts). Run through bench/scale.sh
 * (npm run bench:scale -- --n 100,500,1000 --concurrency 4,1 --idle 300). --smoke: N=2 on one
 * kwok node, 5 idle seconds (results to a temporary directory).
 */
import { Obj, kubectl, kubectlOk } from "../../test/integration/harness/kubectl";
import { sleep, waitFor } from "../../test/integration/harness/wait";
import { buildWatcher, ensurePeprPrerequisites } from "../../test/integration/harness/watcher";
import { installCrd } from "../../test/integration/harness/fixtures";
import { requireQuietCluster } from "../lib/namespaces";
import { removeWebhooks } from "../../test/integration/harness/operator";
import { delta, scrapeApiserver, sumBy } from "../lib/apiserver-metrics";
import { auditMark, countOperatorRequests, writesOf } from "../lib/audit";
import { Kwok, ON_KWOK_NODES } from "../lib/kwok";
import { kubectlBig } from "../lib/kubectl";
import { fmt } from "../lib/process";
import { Placement, parsePlacement, startOperator } from "../lib/placement";
import { isSmoke, runStart, saveResult } from "../lib/result";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RESULTS_DIR } from "../report/sections";
import { withKeptRuns } from "../report/scale";
import type { ScaleParameters, ScaleResult, ScaleRun } from "../report/scale";
import { unsyncedKinds } from "./informers";
import { countProgress, DatabaseView } from "./progress";
import { runMain } from "../lib/main";
import { ScaleOperator, ScaleSettings, clusterOperator, hostOperator } from "./operator";

interface Options {
  sizes: number[];
  concurrencies: number[];
  idleSeconds: number;
  nodes: number;
  resyncSeconds: number;
  kwok: string;
  /** NODE_OPTIONS for the operator, e.g. "--max-old-space-size=256" (a memory/GC trade-off). */
  nodeOptions: string;
  /** How long to wait for every Database to be Ready after all are reconciled (seconds). */
  readyTimeout: number;
  /** Where the operator runs (OPERATOR=cluster|dev; dev, a host process, by default). */
  placement: Placement;
}

/** Flags, with the smoke run's smaller defaults under --smoke. */
function parseArgs(argv: string[], smoke: boolean): Options {
  const arg = (name: string, fallback: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
  };
  const list = (s: string) =>
    s
      .split(",")
      .map(Number)
      .filter(n => n > 0);
  return {
    sizes: list(arg("n", smoke ? "2" : "100")),
    concurrencies: list(arg("concurrency", "4")),
    idleSeconds: Number(arg("idle", smoke ? "5" : "300")),
    nodes: Number(arg("nodes", smoke ? "1" : "10")),
    resyncSeconds: Number(arg("resync", "60")),
    kwok: arg("kwok", process.env.PGKEEPER_KWOK ?? "kwok"),
    nodeOptions: arg("node-options", ""),
    readyTimeout: Number(arg("ready-timeout", smoke ? "60" : "600")),
    placement: parsePlacement(process.env.OPERATOR ?? "dev"),
  };
}

const database = (ns: string, i: number) => ({
  apiVersion: "pgkeeper.dev/v1alpha1",
  kind: "Database",
  metadata: { name: `db-${i}`, namespace: ns },
  // No PostgreSQL runs in kwok's pods: automatic failover off, or the HA step would keep
  // retrying an impossible failover on every Database (a reconcile every 2 s each).
  spec: {
    version: "15",
    instances: 3,
    storage: { size: "1Gi" },
    failover: { enabled: false },
    // On kwok's nodes only: with the operator installed, the node tier's real node runs it.
    scheduling: ON_KWOK_NODES,
  },
});

/**
 * The class our PVCs get: the default StorageClass if the cluster has one (a cluster reused
 * from the node tier has local-path), else none.
 */
function defaultStorageClass(): string {
  const list = JSON.parse(kubectlBig(["get", "storageclasses", "-o", "json"])) as { items: Obj[] };
  const isDefault = (sc: Obj) =>
    sc.metadata.annotations?.["storageclass.kubernetes.io/is-default-class"] === "true";
  return list.items.find(isDefault)?.metadata.name ?? "";
}

/**
 * Pre-created volumes, one per instance: no provisioner runs for kwok's nodes, so the PVCs
 * bind to these (same class as the PVCs, or they never would).
 */
const volumes = (ns: string, count: number, storageClassName: string) =>
  Array.from({ length: count }, (_, i) => ({
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: `${ns}-pv-${i}`, labels: { "pgkeeper.dev/bench": ns } },
    spec: {
      storageClassName,
      capacity: { storage: "1Gi" },
      accessModes: ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: "Retain",
      hostPath: { path: `/tmp/pgkeeper-bench/${ns}/${i}` },
    },
  }));

const applyList = (items: object[]) =>
  kubectlBig(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items }));

function progress(ns: string): { reconciled: number; ready: number } {
  const list = JSON.parse(kubectlBig(["get", "databases", "-n", ns, "-o", "json"])) as {
    items: DatabaseView[];
  };
  return countProgress(list.items);
}

const perDb = (counts: Record<string, number>, n: number): string =>
  Object.entries(counts)
    .sort()
    .map(([verb, c]) => `${verb}=${fmt(c / n, 2)}`)
    .join(" ");

const QUIET_SECONDS = 15;

/**
 * Waits (at most 120 s) for a window of QUIET_SECONDS in which `user` made no write; how long it
 * took, or undefined when it never was quiet (writes at rest: the idle figures will say so).
 */
async function awaitQuiet(user: string): Promise<{ seconds: number } | undefined> {
  const start = Date.now();
  while (Date.now() - start < 120_000) {
    const mark = auditMark();
    await sleep(QUIET_SECONDS * 1000);
    if (writesOf(await countOperatorRequests(mark, user)) === 0)
      return { seconds: (Date.now() - start) / 1000 };
  }
  return undefined;
}

/** Every informer has listed its kind; throws naming those that have not (for waitFor). */
async function informersSynced(watcher: ScaleOperator): Promise<true> {
  const scrape = await watcher.scrape();
  const missing = scrape === undefined ? ["(no metrics)"] : unsyncedKinds(scrape);
  if (missing.length > 0) throw new Error(`not synced yet: ${missing.join(", ")}`);
  return true;
}

/** One run. */
async function runOnce(n: number, concurrency: number, o: Options): Promise<ScaleRun> {
  const ns = `bench-${n}-c${concurrency}-${Date.now() % 100000}`;
  kubectlOk(["create", "namespace", ns]);
  applyList(volumes(ns, 3 * n + 3, defaultStorageClass())); // + the warm-up Database's (Retain: not reused)
  const settings: ScaleSettings = {
    concurrency,
    resyncSeconds: o.resyncSeconds,
    nodeOptions: o.nodeOptions,
    // Nothing answers SQL in kwok's pods: probe once an hour instead of every second.
    probeIntervalMs: process.env.PGKEEPER_PROBE_INTERVAL_MS ?? "3600000",
  };
  const watcher =
    o.placement === "cluster" ? await clusterOperator(settings) : await hostOperator(ns, settings);
  try {
    await waitFor(
      "the bench operator to lead",
      async () => (await watcher.metric("pgkeeper_leader")) === 1,
      {
        timeoutMs: 30_000,
      },
    );
    // Start the clock only once every watch runs: the informers say so; Pepr's Database watch
    // does not, so a warm-up Database must be reconciled first.
    await waitFor("the informers to sync", () => informersSynced(watcher), { timeoutMs: 60_000 });
    kubectlBig(
      ["create", "-f", "-"],
      JSON.stringify({ ...database(ns, 0), metadata: { name: "warmup", namespace: ns } }),
    );
    await waitFor("the warm-up Database to be reconciled", () => progress(ns).reconciled === 1, {
      timeoutMs: 120_000,
    });
    kubectlBig(["delete", "database", "-n", ns, "warmup", "--wait=true"]);
    // A loaded machine can keep a scrape waiting: retry rather than lose the run.
    const metric = (name: string, filter = "") =>
      waitFor(`metric ${name}`, () => watcher.metric(name, filter).catch(() => undefined), {
        timeoutMs: 120_000,
        intervalMs: 2000,
      });
    const reconcilesNow = () => metric("pgkeeper_reconcile_duration_seconds_count");
    const before = {
      api: scrapeApiserver(),
      audit: auditMark(),
      reconciles: await reconcilesNow(),
      cpu: watcher.cpuSeconds(),
    };

    const t0 = Date.now();
    for (let i = 0; i < n; i += 250)
      applyList(Array.from({ length: Math.min(250, n - i) }, (_, k) => database(ns, i + k)));
    const createdS = (Date.now() - t0) / 1000;

    let reconciledAt: number | undefined;
    let readyAt: number | undefined;
    let peakDuring = 0;
    let maxDepth = 0;
    let reconcilesAtConvergence = 0;
    let cpuAtConvergence = 0;
    const deadline = t0 + Math.max(600, n * 3) * 1000;
    const readyDeadline = () => (reconciledAt ?? Infinity) + o.readyTimeout * 1000;
    while (Date.now() < Math.min(deadline, readyDeadline()) && readyAt === undefined) {
      await sleep(2000);
      const p = progress(ns);
      peakDuring = Math.max(peakDuring, watcher.memory()?.rssMiB ?? 0);
      maxDepth = Math.max(
        maxDepth,
        await watcher.metric("pgkeeper_workqueue_depth").catch(() => 0),
      );
      if (p.reconciled === n && reconciledAt === undefined) {
        reconciledAt = Date.now();
        reconcilesAtConvergence = (await reconcilesNow()) - before.reconciles;
        cpuAtConvergence = watcher.cpuSeconds() - before.cpu;
      }
      if (p.ready === n) readyAt = Date.now();
    }
    const atConvergence = { api: scrapeApiserver(), reconciles: await reconcilesNow() };
    const operator = await countOperatorRequests(before.audit, watcher.user);
    const convS = reconciledAt ? (reconciledAt - t0) / 1000 : undefined;
    const allVerbs = delta(
      sumBy(atConvergence.api, "apiserver_request_total", "verb"),
      sumBy(before.api, "apiserver_request_total", "verb"),
    );
    const reconciles = atConvergence.reconciles - before.reconciles;
    const readsBySource = async () => ({
      cache: await metric("pgkeeper_cluster_reads_total", 'source="cache"'),
      api: await metric("pgkeeper_cluster_reads_total", 'source="api_'),
    });

    // Idle: nothing changes; resyncs reconcile every Database every resyncSeconds. It begins once
    // the operator has written nothing for QUIET_SECONDS: the status saying every pod is ready
    // comes a pass before the topology that follows it, so the first seconds after "all Ready"
    // are still creation's writes.
    const settled = await awaitQuiet(watcher.user);
    console.log(
      `operator quiet after all Ready: ${settled ? `${fmt(settled.seconds)} s` : "not within 120 s"}`,
    );
    const idleFrom = {
      audit: auditMark(),
      reconciles: await reconcilesNow(),
      reads: await readsBySource(),
    };
    await sleep(o.idleSeconds * 1000);
    const idle = await countOperatorRequests(idleFrom.audit, watcher.user);
    const idleReconciles = (await reconcilesNow()) - idleFrom.reconciles;
    const idleReads = await readsBySource();
    const heapUsedMiB = (await metric("nodejs_heap_size_used_bytes")) / 1048576;
    const mem = watcher.memory();

    console.log(
      `\n=== N=${n} Databases × 3 instances, concurrency ${concurrency} (${o.nodes} kwok nodes, operator: ${o.placement}) ===`,
    );
    console.log(`created in                         ${fmt(createdS)} s`);
    console.log(
      `all reconciled after               ${fmt(convS)} s (children applied, observedGeneration current)`,
    );
    console.log(
      `until then: ${reconcilesAtConvergence} reconciles (${fmt(convS ? reconcilesAtConvergence / convS : undefined)}/s), operator CPU ${fmt(cpuAtConvergence)} s, max queue depth ${maxDepth}`,
    );
    console.log(
      `all Ready after                    ${fmt(readyAt ? (readyAt - t0) / 1000 : undefined)} s`,
    );
    console.log(
      `reconciles until Ready             ${reconciles} (${fmt(reconciles / n, 1)} per Database)`,
    );
    console.log(
      `reconciles/s                       ${fmt(readyAt ? reconciles / ((readyAt - t0) / 1000) : undefined)}`,
    );
    console.log(
      `apiserver requests per DB, all clients (apiserver_request_total): ${perDb(allVerbs, n)}`,
    );
    console.log(
      `operator requests per DB (audit):  ${perDb(operator.byVerb, n)} events=${fmt(operator.events / n, 2)}`,
    );
    console.log(`operator requests by resource:     ${JSON.stringify(operator.byVerbResource)}`);
    console.log(
      `idle ${o.idleSeconds} s: reconciles ${idleReconciles}, operator GET ${idle.reconcileReads.get}, reconcile LIST ${idle.reconcileReads.list} → GET/LIST per steady-state reconcile ${fmt((idle.reconcileReads.get + idle.reconcileReads.list) / Math.max(idleReconciles, 1), 3)}`,
    );
    console.log(
      `idle ${o.idleSeconds} s: reconcile reads from the cache ${idleReads.cache - idleFrom.reads.cache}, from the apiserver ${idleReads.api - idleFrom.reads.api} (operator metrics)`,
    );
    console.log(
      `idle ${o.idleSeconds} s: operator writes ${writesOf(idle)}, events ${idle.events}, Lease renewals ${idle.leaseWrites}; all its requests: ${JSON.stringify(idle.byVerbResource)}`,
    );
    console.log(
      `operator RSS now ${fmt(mem?.rssMiB)} MiB, peak (VmHWM) ${fmt(mem?.peakMiB)} MiB, live JS heap ${fmt(heapUsedMiB)} MiB${o.nodeOptions ? ` (NODE_OPTIONS=${o.nodeOptions})` : ""}`,
    );
    const perDbFigures = (counts: Record<string, number>) =>
      Object.fromEntries(Object.entries(counts).map(([verb, c]) => [verb, c / n]));
    return {
      n,
      concurrency,
      reconciledSeconds: convS ?? null,
      reconcilesPerSecondUntilReconciled: convS ? reconcilesAtConvergence / convS : null,
      operatorCpuSecondsUntilReconciled: reconciledAt ? cpuAtConvergence : null,
      readySeconds: readyAt ? (readyAt - t0) / 1000 : null,
      idle: {
        seconds: o.idleSeconds,
        reconciles: idleReconciles,
        apiGets: idle.reconcileReads.get,
        apiLists: idle.reconcileReads.list,
        cacheReads: idleReads.cache - idleFrom.reads.cache,
        writes: writesOf(idle),
        events: idle.events,
        leaseWrites: idle.leaseWrites,
      },
      peakRssMiB: mem?.peakMiB ?? null,
      requestsPerDatabase: perDbFigures(allVerbs),
      operatorRequestsPerDatabase: perDbFigures(operator.byVerb),
      rssNowMiB: mem?.rssMiB ?? null,
      heapUsedMiB,
      maxQueueDepth: maxDepth,
    };
  } finally {
    await watcher.stop();
    kubectl(["delete", "namespace", ns, "--wait=false"]);
    // Waited for even after the last run: kwok, still running, finishes the pods' deletion (a
    // force-deleted pod's StatefulSet could make another, which nothing would ever finish), and
    // the next run begins on a cluster without this one's objects.
    await waitFor(
      `namespace ${ns} to be deleted`,
      () => kubectl(["get", "namespace", ns]).code !== 0,
      {
        timeoutMs: 900_000,
        intervalMs: 5000,
      },
    ).catch(err => console.warn(String(err)));
    kubectl(["delete", "pv", "-l", `pgkeeper.dev/bench=${ns}`, "--wait=false"]);
  }
}

/** KEEP=1: the committed result, whose runs of other sizes stay in the table. */
function kept(smoke: boolean): ScaleResult | undefined {
  const file = join(RESULTS_DIR, "scale.json");
  if (process.env.KEEP !== "1" || smoke || !existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, "utf8")) as ScaleResult;
}

async function main(): Promise<void> {
  const smoke = isSmoke();
  const start = runStart();
  const o = parseArgs(process.argv.slice(2), smoke);
  await installCrd();
  await requireQuietCluster();
  // Installed: `pepr deploy`'s admission and watchers. On the host: no admission (and none left
  // over from a pepr dev run).
  const installed =
    o.placement === "cluster" ? await startOperator("cluster", "bench-scale") : undefined;
  if (!installed) {
    removeWebhooks();
    ensurePeprPrerequisites();
    buildWatcher();
  }
  const kwok = new Kwok();
  await kwok.start(o.kwok, o.nodes);
  const runs: ScaleRun[] = [];
  try {
    const plan = o.sizes.flatMap(n => o.concurrencies.map(c => [n, c] as const));
    for (const [n, c] of plan) runs.push(await runOnce(n, c, o));
  } finally {
    await kwok.stop();
    await installed?.stop();
  }
  const parameters: ScaleParameters = {
    sizes: o.sizes,
    concurrencies: o.concurrencies,
    idleSeconds: o.idleSeconds,
    nodes: o.nodes,
    resyncSeconds: o.resyncSeconds,
    nodeOptions: o.nodeOptions,
    readyTimeoutSeconds: o.readyTimeout,
    placement: o.placement,
  };
  saveResult("scale", start, parameters, { runs: withKeptRuns(kept(smoke), runs) }, smoke);
}

runMain(main);
