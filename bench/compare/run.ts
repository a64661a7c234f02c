/**
 * bench/compare: pgkeeper's watcher against the controller-runtime baseline on the same local
 * apiserver (control plane only: pods stay Pending), the same N Databases of 3 instances created
 * at once, the same number of workers, one operator after the other. For each: time until every
 * Database's status.observedGeneration is current, operator CPU until then, peak RSS, its
 * requests per Database (audit log), its writes and reads in an idle window after, and again once
 * settled (every pod made by the controller-manager, 5 s without a write); then pgkeeper's figures
 * as ratios of the baseline's. Each operator runs with its defaults (pgkeeper's 5-minute resync).
 *
 * Figures, not a test. Run through bench/compare.sh
 * (npm run bench:compare -- --n 100,500,1000 --workers 4 --idle 30). --smoke: N=2, 5 idle seconds.
 * To study one side: --only pgkeeper|baseline (nothing saved), --cpu-prof <dir> (pgkeeper's V8
 * profile, written when it stops), --node-options "<flags>" (V8 flags for pgkeeper's watcher, e.g.
 * "--max-semi-space-size=1": a memory/CPU trade-off to measure).
 */
import { Obj, kubectlOk } from "../../test/integration/harness/kubectl";
import { sleep, waitFor } from "../../test/integration/harness/wait";
import {
  Watcher,
  buildWatcher,
  ensurePeprPrerequisites,
} from "../../test/integration/harness/watcher";
import { installCrd } from "../../test/integration/harness/fixtures";
import { removeNamespace, requireQuietCluster } from "../lib/namespaces";
import { removeWebhooks } from "../../test/integration/harness/operator";
import { AuditCounts, auditMark, countOperatorRequests, writesOf } from "../lib/audit";
import { kubectlBig } from "../lib/kubectl";
import { runMain } from "../lib/main";
import { cpuSecondsOf, memoryOf } from "../lib/process";
import { fixed as fmt } from "../report/format";
import { isSmoke, runStart, saveResult } from "../lib/result";
import {
  CompareParameters,
  CompareRun,
  CompareSide,
  ratiosOf,
  totalRequests,
} from "../report/compare";
import { unsyncedKinds } from "../scale/informers";
import { RunningOperator, startBaseline } from "./baseline";
import { DEFAULT_CONFIG } from "../../capabilities/database/lib/config";

interface Options {
  sizes: number[];
  workers: number;
  idleSeconds: number;
  baseline: string;
  /** One side alone, to study it (nothing is saved): "pgkeeper" or "baseline". */
  only: string;
  /** A directory for a V8 CPU profile of pgkeeper's watcher (node --cpu-prof), if any. */
  cpuProfileDir: string;
  /** Flags for node running pgkeeper's watcher, space-separated. */
  nodeOptions: string[];
}

function parseArgs(argv: string[], smoke: boolean): Options {
  const arg = (name: string, fallback: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
  };
  return {
    sizes: arg("n", smoke ? "2" : "100")
      .split(",")
      .map(Number)
      .filter(n => n > 0),
    workers: Number(arg("workers", "4")),
    idleSeconds: Number(arg("idle", smoke ? "5" : "30")),
    baseline: arg("baseline", process.env.PGKEEPER_BASELINE ?? ""),
    only: arg("only", ""),
    cpuProfileDir: arg("cpu-prof", ""),
    nodeOptions: arg("node-options", "").split(" ").filter(Boolean),
  };
}

const database = (namespace: string, name: string) => ({
  apiVersion: "pgkeeper.dev/v1alpha1",
  kind: "Database",
  metadata: { name, namespace },
  // No PostgreSQL runs (pods stay Pending): failover off, as in bench/scale.
  spec: { version: "15", instances: 3, storage: { size: "1Gi" }, failover: { enabled: false } },
});

const perDatabase = (counts: Record<string, number>, n: number) =>
  Object.fromEntries(Object.entries(counts).map(([key, c]) => [key, c / n]));

const createAll = (items: object[]) =>
  kubectlBig(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items }));

/** Databases of `namespace` whose status.observedGeneration is current. */
function observed(namespace: string): number {
  const list = JSON.parse(kubectlBig(["get", "databases", "-n", namespace, "-o", "json"])) as {
    items: Obj[];
  };
  return list.items.filter(
    d =>
      (d.status as { observedGeneration?: number } | undefined)?.observedGeneration ===
      d.metadata.generation,
  ).length;
}

async function startPgkeeper(namespace: string, o: Options): Promise<RunningOperator> {
  const watcher = new Watcher(
    `compare-${namespace}`,
    {
      // The defaults users run, not the tests' short resync and backoff.
      PGKEEPER_RESYNC_SECONDS: String(DEFAULT_CONFIG.resyncSeconds),
      PGKEEPER_BACKOFF_BASE_MS: String(DEFAULT_CONFIG.backoffBaseMs),
      PGKEEPER_BACKOFF_CAP_MS: String(DEFAULT_CONFIG.backoffCapMs),
      PGKEEPER_MAX_CONCURRENT_RECONCILES: String(o.workers),
      PGKEEPER_LEASE_NAMESPACE: namespace,
      LOG_LEVEL: "warn",
      // Nothing answers SQL in Pending pods: probe once an hour.
      PGKEEPER_PROBE_INTERVAL_MS: "3600000",
    },
    [
      ...o.nodeOptions,
      ...(o.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${o.cpuProfileDir}`] : []),
    ],
  );
  await watcher.start();
  await waitFor("the watcher to lead", async () => (await watcher.metric("pgkeeper_leader")) === 1);
  await waitFor("the informers to sync", async () => {
    const scrape = await watcher.scrape();
    return scrape !== undefined && unsyncedKinds(scrape).length === 0;
  });
  return { pid: watcher.pid ?? 0, stop: () => watcher.stop("SIGTERM") };
}

/** The operator's requests in the next `seconds`. */
async function window(seconds: number): Promise<AuditCounts> {
  const mark = auditMark();
  await sleep(seconds * 1000);
  return countOperatorRequests(mark);
}

const windowFigures = (c: AuditCounts): CompareSide["idle"] => ({
  writes: writesOf(c),
  leaseWrites: c.leaseWrites,
  gets: c.reconcileReads.get,
  lists: c.reconcileReads.list,
  byVerbResource: c.byVerbResource,
});

const QUIET_SECONDS = 5;
/** The controller-manager makes about 7 pods a second here: 3 per Database, and some margin. */
const settleLimitMs = (n: number) => Math.max(120_000, n * 600);

/**
 * Waits until the controller-manager has made every pod it will (their number held still for
 * 5 s: a StatefulSet with ordered pod management makes only its first, the others wait for it to
 * be Ready) and the operator has written nothing in those 5 s: the operator labels each new pod.
 * Returns when it began, how long it took and the operator's writes meanwhile; no `seconds` if
 * it did not settle within `limitMs`.
 */
async function settle(
  namespace: string,
  limitMs: number,
): Promise<{ from: number; seconds?: number; writes: number }> {
  const from = Date.now();
  const podCount = () =>
    kubectlBig(["get", "pods", "-n", namespace, "-o", "name"]).split("\n").filter(Boolean).length;
  let writes = 0;
  let pods = podCount();
  while (Date.now() - from < limitMs) {
    const counts = await window(QUIET_SECONDS);
    writes += writesOf(counts);
    const now = podCount();
    if (writesOf(counts) === 0 && now === pods)
      return { from, seconds: (Date.now() - from) / 1000, writes };
    pods = now;
  }
  return { from, writes };
}

/** One operator through one N: warm-up, the burst, convergence, the idle window. */
async function measure(
  impl: "pgkeeper" | "baseline",
  n: number,
  o: Options,
  start: (namespace: string) => Promise<RunningOperator>,
): Promise<CompareSide> {
  const namespace = `compare-${impl}-${n}-${Date.now() % 100000}`;
  kubectlOk(["create", "namespace", namespace]);
  const operator = await start(namespace);
  try {
    // Caches and watches live before the clock starts.
    createAll([database(namespace, "warmup")]);
    await waitFor("the warm-up Database", () => observed(namespace) === 1, { timeoutMs: 120_000 });
    const cpu0 = cpuSecondsOf(operator.pid) ?? 0;
    const mark = auditMark();
    const t0 = Date.now();
    for (let i = 0; i < n; i += 250)
      createAll(
        Array.from({ length: Math.min(250, n - i) }, (_, k) => database(namespace, `db-${i + k}`)),
      );
    let convergedAt: number | undefined;
    let cpu: number | null = null;
    const deadline = t0 + Math.max(600, n * 3) * 1000;
    while (Date.now() < deadline) {
      await sleep(1000);
      if (observed(namespace) === n + 1) {
        convergedAt = Date.now();
        cpu = (cpuSecondsOf(operator.pid) ?? 0) - cpu0;
        break;
      }
    }
    const requests = await countOperatorRequests(mark);
    const idle = await window(o.idleSeconds);
    const settled = convergedAt ? await settle(namespace, settleLimitMs(n)) : undefined;
    // Measured settled or not: an operator that never settles shows what it does forever.
    const atRest = settled ? await window(o.idleSeconds) : undefined;
    const memory = memoryOf(operator.pid);
    return {
      convergedSeconds: convergedAt ? (convergedAt - t0) / 1000 : null,
      cpuSeconds: cpu,
      peakRssMiB: memory?.peakMiB ?? null,
      requestsPerDatabase: perDatabase(requests.byVerb, n),
      idle: windowFigures(idle),
      ...(convergedAt
        ? {
            settledSeconds:
              settled?.seconds === undefined
                ? null
                : settled.seconds + (settled.from - convergedAt) / 1000,
            settlingWrites: writesOf(idle) + (settled?.writes ?? 0),
            ...(atRest ? { atRest: windowFigures(atRest) } : {}),
          }
        : {}),
      requestsByVerbResource: perDatabase(requests.byVerbResource, n),
    };
  } finally {
    await operator.stop();
    // The next operator (or bench) must not share the machine with this one's garbage collection.
    await removeNamespace(namespace, { forcePods: true }).catch(err => console.warn(String(err)));
  }
}

const sideLine = (name: string, s: CompareSide, o: Options) =>
  `${name.padEnd(20)} all observed ${fmt(s.convergedSeconds)} s, CPU ${fmt(s.cpuSeconds)} s, peak RSS ${fmt(s.peakRssMiB, 0)} MiB, requests/DB ${fmt(totalRequests(s.requestsPerDatabase), 2)} ${JSON.stringify(s.requestsPerDatabase)}; idle ${o.idleSeconds} s: writes ${s.idle.writes} (+${s.idle.leaseWrites} Lease), GET ${s.idle.gets}, LIST ${s.idle.lists}`;

/** What each side asked for, per Database and at rest, by verb and resource. */
function printDetail(name: string, s: CompareSide): void {
  const rounded = (counts: Record<string, number> = {}) =>
    Object.entries(counts)
      .sort(([, a], [, b]) => b - a)
      .map(([k, v]) => `${k} ${fmt(v, 2)}`)
      .join(", ");
  console.log(`  ${name} per Database: ${rounded(s.requestsByVerbResource)}`);
  console.log(`  ${name} idle: ${rounded(s.idle.byVerbResource)}`);
  console.log(
    `  ${name} settled ${fmt(s.settledSeconds ?? null)} s after (${s.settlingWrites ?? 0} writes meanwhile); at rest: ${rounded(s.atRest?.byVerbResource)}`,
  );
}

function print(run: CompareRun, o: Options): void {
  const r = ratiosOf(run);
  console.log(`\n=== N=${run.n}, ${o.workers} workers ===`);
  console.log(sideLine("controller-runtime", run.baseline, o));
  console.log(sideLine("pgkeeper", run.pgkeeper, o));
  printDetail("controller-runtime", run.baseline);
  printDetail("pgkeeper", run.pgkeeper);
  console.log(
    `pgkeeper ÷ baseline: time ${fmt(r.converged, 2)}×, CPU ${fmt(r.cpu, 2)}×, peak RSS ${fmt(r.peakRss, 2)}×, requests ${fmt(r.requests, 2)}×`,
  );
}

async function main(): Promise<void> {
  const smoke = isSmoke();
  const start = runStart();
  const o = parseArgs(process.argv.slice(2), smoke);
  if (o.baseline === "" && o.only !== "pgkeeper")
    throw new Error("--baseline (or PGKEEPER_BASELINE): the baseline binary");
  // Saved figures are the defaults users run.
  if (o.nodeOptions.length > 0 && o.only !== "pgkeeper")
    throw new Error("--node-options studies pgkeeper alone: add --only pgkeeper");
  await installCrd();
  await requireQuietCluster();
  removeWebhooks(); // no admission for either operator
  ensurePeprPrerequisites();
  buildWatcher();
  const runs: CompareRun[] = [];
  const startOne = {
    baseline: async (ns: string) => startBaseline(o.baseline, o.workers, ns),
    pgkeeper: (ns: string) => startPgkeeper(ns, o),
  };
  for (const n of o.sizes) {
    if (o.only === "pgkeeper" || o.only === "baseline") {
      const side = await measure(o.only, n, o, startOne[o.only]);
      console.log(`\n=== N=${n}, ${o.workers} workers, ${o.only} alone ===`);
      console.log(sideLine(o.only, side, o));
      printDetail(o.only, side);
      continue;
    }
    const baseline = await measure("baseline", n, o, startOne.baseline);
    const pgkeeper = await measure("pgkeeper", n, o, startOne.pgkeeper);
    const run = { n, pgkeeper, baseline };
    print(run, o);
    runs.push(run);
  }
  if (o.only !== "") return; // a study, not a result
  const parameters: CompareParameters = {
    sizes: o.sizes,
    workers: o.workers,
    idleSeconds: o.idleSeconds,
  };
  saveResult("compare", start, parameters, { runs }, smoke);
}

runMain(main);
