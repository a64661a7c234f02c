/**
 * The failover benchmark (run through bench/failover/run.sh, which provides the cluster). One
 * INSTANCES-instance Database (3) under a continuous write load through `<db>-rw` loses its
 * primary FAILOVERS times per fault (faults.ts), the operator at its defaults (placement.ts);
 * each time: fault → first write acknowledged by the recovered primary, with the timeline of how
 * it got there (timeline.ts, observer.ts); after all: acknowledged rows missing, and rounds in
 * which two instances accepted writes. Figures, not pass/fail: one line per failover, a table per
 * fault, and the JSON (bench/lib/result.ts), written again after each failover so that a long
 * run stopped midway keeps what it measured.
 *
 * KEEP=1: the faults this run does not run keep their rows from the committed results
 * (bench/results/failover.json), marked with the run they come from, so a run of the slow faults
 * does not drop the table's others.
 *
 * BENCH_SMOKE=1 (or --smoke): one pod deletion of a 2-instance Database, the operator under
 * `pepr dev`, unless FAILOVERS, FAULTS, INSTANCES or OPERATOR say otherwise.
 */
import { database, installCrd, freshNamespace } from "../../test/integration/harness/fixtures";
import { create } from "../../test/integration/harness/kubectl";
import { waitFor } from "../../test/integration/harness/wait";
import { Load } from "../../test/e2e/load";
import { missingAcknowledgedRows } from "../../test/e2e/load/rows";
import { appCredentials, psql } from "../../test/e2e/psql";
import { isSmoke, runStart, saveResult } from "../lib/result";
import { runMain } from "../lib/main";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FailoverFault, FailoverParameters, FailoverResult } from "../report/failover";
import { keptFaults, summarize, withKept } from "../report/failover";
import { RESULTS_DIR } from "../report/sections";
import { FAULTS, parseFaults } from "./faults";
import { healthy, runFault } from "./measure";
import { parsePlacement, startOperator } from "../lib/placement";
import { removeNamespace, requireQuietCluster } from "../lib/namespaces";

const SMOKE = isSmoke();
const FAILOVERS = Number(process.env.FAILOVERS ?? (SMOKE ? 1 : 60));
const FAULT_RUNS = parseFaults(
  process.env.FAULTS ?? (SMOKE ? "delete" : FAULTS.join(",")),
  FAILOVERS,
);
const SYNCHRONOUS = process.env.MODE === "sync";
const INSTANCES = Number(process.env.INSTANCES ?? (SMOKE ? 2 : 3));
const PLACEMENT = parsePlacement(process.env.OPERATOR ?? (SMOKE ? "dev" : "cluster"));
const KEEP = process.env.KEEP === "1";

/** The committed run's faults this run does not run (KEEP=1). */
function kept(): FailoverFault[] {
  const file = join(RESULTS_DIR, "failover.json");
  if (!KEEP || SMOKE || !existsSync(file)) return [];
  const previous = JSON.parse(readFileSync(file, "utf8")) as FailoverResult;
  return keptFaults(
    previous,
    FAULT_RUNS.map(r => r.fault),
  );
}

async function main(): Promise<void> {
  const start = runStart();
  await installCrd();
  await requireQuietCluster();
  const operator = await startOperator(PLACEMENT, "bench-failover");
  const ns = freshNamespace("bench-failover");
  const db = "bench";
  const faults: FailoverFault[] = [];
  const keep = kept();
  const all = () => withKept(FAULTS, faults, keep);
  const parameters = (): FailoverParameters => ({
    failovers: FAILOVERS,
    faults: FAULT_RUNS.map(r => r.fault),
    counts: Object.fromEntries(FAULT_RUNS.map(r => [r.fault, r.count])),
    synchronous: SYNCHRONOUS,
    instances: INSTANCES,
    operator: PLACEMENT,
    probe: {
      intervalMs: operator.config.probeIntervalMs,
      timeoutMs: operator.config.probeTimeoutMs,
      failureThreshold: operator.config.probeFailureThreshold,
    },
  });
  try {
    create(
      database(ns, db, {
        instances: INSTANCES,
        ...(SYNCHRONOUS ? { postgresql: { synchronous: { mode: "quorum", number: 1 } } } : {}),
      }),
    );
    await healthy(ns, db, INSTANCES);
    const creds = appCredentials(ns, db);
    await waitFor("SQL", () => psql(creds, "select 1") === "1", { timeoutMs: 60_000 });
    psql(creds, "create table load (id bigint primary key, at timestamptz default now())");
    const load = new Load(ns, db);
    load.start();
    try {
      await waitFor("writes", () => load.acknowledged() > 20, { timeoutMs: 60_000 });
      const saved = () => {
        if (SMOKE) return;
        try {
          saveResult("failover", start, parameters(), { faults: all(), rows: null }, SMOKE);
        } catch (err) {
          // Figures not usable yet (a fault with no failover completed so far): the next one may be.
          console.log(`results not saved yet: ${(err as Error).message}`);
        }
      };
      for (const run of FAULT_RUNS)
        await runFault({ ns, db, load, instances: INSTANCES }, run, faults, saved);
    } finally {
      await load.stop();
    }
    const rows = await missingAcknowledgedRows(creds, "load", load.acknowledgedRanges(), 120_000);
    const figures = {
      faults: all(),
      rows: { acknowledged: rows.acknowledged, lost: rows.missing },
    };
    console.log(
      "\n=== bench/failover: fault → first write acknowledged by the recovered primary ===",
    );
    for (const f of faults) console.log(summarize(f));
    console.log(`acknowledged rows lost: ${rows.missing} of ${rows.acknowledged}`);
    saveResult("failover", start, parameters(), figures, SMOKE);
  } finally {
    await removeNamespace(ns); // its pods stopped before the operator goes
    await operator.stop();
  }
}

runMain(main);
