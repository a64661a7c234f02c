/**
 * One measured failover of a Database under the write load (test/e2e/load), shared by
 * bench/failover (one Database, many failovers) and bench/fleet (one Database of many): the
 * fault, the first write acknowledged by the recovered primary, the timeline of how it got there
 * (timeline.ts, observer.ts), and the raw observations kept in the log directory.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { env } from "../../test/integration/harness/env";
import { get } from "../../test/integration/harness/kubectl";
import { waitFor } from "../../test/integration/harness/wait";
import type { Ack, Load } from "../../test/e2e/load";
import { missingAcknowledgedRows } from "../../test/e2e/load/rows";
import { appCredentials } from "../../test/e2e/psql";
import type { FailoverFault } from "../report/failover";
import { Fault, FaultRun, Target, inject, movesPrimary } from "./faults";
import { Observer } from "./observer";
import { Observation, Timeline, timelineOf } from "./timeline";

/** A killed postmaster's recovery counts once writes have gone this long without failing. */
const SETTLED_MS = 3000;
/** How long observers may lag behind the acknowledged write and still count. */
const OBSERVER_SLACK_MS = 2000;

export interface Status {
  phase?: string;
  currentPrimary?: string;
  instances?: { name: string; ready: boolean; role: string; streaming?: boolean }[];
}

export const statusOf = (ns: string, db: string): Status =>
  (get("database", ns, db)?.status ?? {}) as Status;

/** Ready, with `instances` instances all ready and every replica streaming. */
export const isHealthy = (s: Status, instances: number): boolean =>
  s.phase === "Ready" &&
  (s.instances ?? []).length === instances &&
  (s.instances ?? []).every(i => i.ready && (i.role === "primary" || i.streaming));

/** Waits until the Database is healthy (between failovers). */
export const healthy = (ns: string, db: string, instances: number): Promise<Status> =>
  waitFor(
    `${db} healthy`,
    () => {
      const s = statusOf(ns, db);
      return isHealthy(s, instances) ? s : undefined;
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

/** One failover of `db`'s primary under `load`: the fault, the recovered write, the timeline. */
export async function failOnce(
  ns: string,
  db: string,
  load: Load,
  fault: Fault,
): Promise<Timeline> {
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

/** The console's line of one failover. */
export const timelineLine = (t: Timeline): string =>
  Object.entries(t)
    .map(([k, v]) => `${k.replace(/Ms$/, "")} ${(Number(v) / 1000).toFixed(2)}`)
    .join(", ");

/** A Database under the write load: what a run of failovers works on. */
export interface UnderLoad {
  ns: string;
  db: string;
  load: Load;
  instances: number;
}

/**
 * The failovers of one fault, added to `faults` and to its figures as each ends (`saved` after
 * each, so a long run stopped midway keeps every failover it measured); then the acknowledged
 * rows missing so far.
 */
export async function runFault(
  { ns, db, load, instances }: UnderLoad,
  run: FaultRun,
  faults: FailoverFault[],
  saved: () => void,
): Promise<void> {
  const figures: FailoverFault = {
    fault: run.fault,
    attempted: 0,
    timelines: [],
    twoWritableRounds: 0,
    failed: [],
  };
  faults.push(figures);
  const violationsBefore = load.violations().length;
  for (let i = 1; i <= run.count; i++) {
    try {
      const t = await failOnce(ns, db, load, figures.fault);
      figures.timelines.push(t);
      console.log(
        `${new Date().toISOString().slice(11, 19)} ${figures.fault} #${i}: ${timelineLine(t)} s`,
      );
    } catch (err) {
      figures.failed.push(`#${i}: ${(err as Error).message.split("\n")[0]}`);
      console.log(`${figures.fault} #${i}: FAILED ${(err as Error).message}`);
    }
    figures.attempted = i;
    figures.twoWritableRounds = load.violations().length - violationsBefore;
    await healthy(ns, db, instances);
    saved();
  }
  const creds = appCredentials(ns, db);
  figures.lostSoFar = (
    await missingAcknowledgedRows(creds, "load", load.acknowledgedRanges())
  ).missing;
  saved();
}
