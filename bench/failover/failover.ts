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
 * BENCH_SMOKE=1 (or --smoke): one pod deletion of a 2-instance Database, the operator under
 * `pepr dev`, unless FAILOVERS, FAULTS, INSTANCES or OPERATOR say otherwise.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { env } from "../../test/integration/harness/env";
import { database, installCrd, freshNamespace } from "../../test/integration/harness/fixtures";
import { create, get } from "../../test/integration/harness/kubectl";
import { waitFor } from "../../test/integration/harness/wait";
import { Load } from "../../test/e2e/load";
import type { Ack } from "../../test/e2e/load";
import { missingAcknowledgedRows } from "../../test/e2e/load/rows";
import { appCredentials, psql } from "../../test/e2e/psql";
import { isSmoke, runStart, saveResult } from "../lib/result";
import { runMain } from "../lib/main";
import type { FailoverFault, FailoverParameters } from "../report/failover";
import { summarize } from "../report/failover";
import { FAULTS, Fault, FaultRun, Target, inject, movesPrimary, parseFaults } from "./faults";
import { Observer } from "./observer";
import type { Observation } from "./timeline";
import { parsePlacement, startOperator } from "../lib/placement";
import { removeNamespace, requireQuietCluster } from "../lib/namespaces";
import { Timeline, timelineOf } from "./timeline";

const SMOKE = isSmoke();
const FAILOVERS = Number(process.env.FAILOVERS ?? (SMOKE ? 1 : 60));
const FAULT_RUNS = parseFaults(
  process.env.FAULTS ?? (SMOKE ? "delete" : FAULTS.join(",")),
  FAILOVERS,
);
const SYNCHRONOUS = process.env.MODE === "sync";
const INSTANCES = Number(process.env.INSTANCES ?? (SMOKE ? 2 : 3));
const PLACEMENT = parsePlacement(process.env.OPERATOR ?? (SMOKE ? "dev" : "cluster"));
/** A killed postmaster's recovery counts once writes have gone this long without failing. */
const SETTLED_MS = 3000;
/** How long observers may lag behind the acknowledged write and still count. */
const OBSERVER_SLACK_MS = 2000;

interface Status {
  phase?: string;
  currentPrimary?: string;
  instances?: { name: string; ready: boolean; role: string; streaming?: boolean }[];
}

const statusOf = (ns: string, db: string): Status =>
  (get("database", ns, db)?.status ?? {}) as Status;

/** Every instance ready and every replica streaming (awaited between failovers). */
const healthy = (ns: string, db: string): Promise<Status> =>
  waitFor(
    `${db} healthy`,
    () => {
      const s = statusOf(ns, db);
      const ok =
        s.phase === "Ready" &&
        (s.instances ?? []).length === INSTANCES &&
        (s.instances ?? []).every(i => i.ready && (i.role === "primary" || i.streaming));
      return ok ? s : undefined;
    },
    { timeoutMs: 600_000, intervalMs: 1000 },
  );

function primaryTarget(ns: string, db: string): Target {
  const status = statusOf(ns, db);
  const pod = status.currentPrimary!;
  const obj = get("pod", ns, pod)!;
  const ip = String((obj.status as { podIP?: string }).podIP);
  const replica = (status.instances ?? []).find(i => i.role !== "primary" && i.streaming)?.name;
  return { namespace: ns, database: db, pod, uid: obj.metadata.uid!, ip, replica: replica ?? "" };
}

/**
 * Each failover's raw observations, in the tier's log directory: what a surprising phase is
 * checked against.
 */
function saveObservations(
  fault: Fault,
  t0: number,
  ack: Ack,
  observations: Observation[],
  errors: string[],
): void {
  const dir = join(env.logDir, "failover-observations");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${fault}-${t0}.json`);
  writeFileSync(file, JSON.stringify({ fault, t0, ack, errors, observations }, null, 1));
  if (errors.length > 0) console.log(`  observer errors (${file}): ${errors.join("; ")}`);
}

/** The write that ends the outage the fault caused (see movesPrimary). */
function recovered(load: Load, fault: Fault, t0: number, old: Target): Ack | undefined {
  if (movesPrimary(fault)) return load.firstAckAfter(t0, old.ip);
  const ack = load.recoveredAfter(t0);
  return ack && Date.now() - ack.at >= SETTLED_MS ? ack : undefined;
}

/** One failover: the fault, the recovered write, the timeline. */
async function failOnce(ns: string, db: string, load: Load, fault: Fault): Promise<Timeline> {
  const old = primaryTarget(ns, db);
  const observer = new Observer(ns, db);
  observer.start();
  const t0 = Date.now();
  const undo = inject(fault, old);
  let ack: Ack;
  try {
    ack = await waitFor(
      "the recovered primary's first write",
      () => recovered(load, fault, t0, old),
      {
        timeoutMs: 180_000,
        intervalMs: 100,
      },
    );
  } finally {
    undo();
  }
  await waitFor("the observers to catch up", () => Date.now() >= ack.at + OBSERVER_SLACK_MS, {
    timeoutMs: OBSERVER_SLACK_MS + 1000,
    intervalMs: 100,
  });
  const { observations, errors } = await observer.stop();
  saveObservations(fault, t0, ack, observations, errors);
  const timeline = timelineOf({
    t0,
    writtenAt: ack.at,
    server: ack.server,
    observations,
    slackMs: OBSERVER_SLACK_MS,
  });
  return { ...timeline, gapMs: load.longestGap(t0, ack.at) };
}

const line = (t: Timeline): string =>
  Object.entries(t)
    .map(([k, v]) => `${k.replace(/Ms$/, "")} ${(Number(v) / 1000).toFixed(2)}`)
    .join(", ");

/**
 * The failovers of one fault, each added to `figures` as it ends (the run saves them after
 * each, so a long run stopped midway keeps every failover it measured).
 */
async function runFault(
  { ns, db, load }: { ns: string; db: string; load: Load },
  run: FaultRun,
  figures: FailoverFault,
  saved: () => void,
): Promise<void> {
  const violationsBefore = load.violations().length;
  for (let i = 1; i <= run.count; i++) {
    try {
      const t = await failOnce(ns, db, load, figures.fault);
      figures.timelines.push(t);
      console.log(`${new Date().toISOString().slice(11, 19)} ${figures.fault} #${i}: ${line(t)} s`);
    } catch (err) {
      figures.failed.push(`#${i}: ${(err as Error).message.split("\n")[0]}`);
      console.log(`${figures.fault} #${i}: FAILED ${(err as Error).message}`);
    }
    figures.attempted = i;
    figures.twoWritableRounds = load.violations().length - violationsBefore;
    await healthy(ns, db);
    saved();
  }
}

async function main(): Promise<void> {
  const start = runStart();
  await installCrd();
  await requireQuietCluster();
  const operator = await startOperator(PLACEMENT, "bench-failover");
  const ns = freshNamespace("bench-failover");
  const db = "bench";
  const faults: FailoverFault[] = [];
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
    await healthy(ns, db);
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
          saveResult("failover", start, parameters(), { faults, rows: null }, SMOKE);
        } catch (err) {
          // Figures not usable yet (a fault with no failover completed so far): the next one may be.
          console.log(`results not saved yet: ${(err as Error).message}`);
        }
      };
      for (const run of FAULT_RUNS) {
        const figures: FailoverFault = {
          fault: run.fault,
          attempted: 0,
          timelines: [],
          twoWritableRounds: 0,
          failed: [],
        };
        faults.push(figures);
        await runFault({ ns, db, load }, run, figures, saved);
        const check = await missingAcknowledgedRows(creds, "load", load.acknowledgedRanges());
        figures.lostSoFar = check.missing;
        saved();
      }
    } finally {
      await load.stop();
    }
    const rows = await missingAcknowledgedRows(creds, "load", load.acknowledgedRanges(), 120_000);
    const figures = { faults, rows: { acknowledged: rows.acknowledged, lost: rows.missing } };
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
