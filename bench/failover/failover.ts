/**
 * The failover benchmark (run through bench/failover/run.sh, which provides the cluster). For each
 * mode, an INSTANCES-instance Database (3) under a continuous write load loses its primary
 * FAILOVERS times; each time: fault → first write acknowledged by another server (ms); after all:
 * acknowledged rows missing. Prints one table and writes the figures as JSON
 * (bench/lib/result.ts); figures, not pass/fail. BENCH_SMOKE=1 (or --smoke): one failover of a
 * 2-instance Database, async only, unless FAILOVERS, MODES or INSTANCES say otherwise.
 */
import { database, installCrd, freshNamespace } from "../../test/integration/harness/fixtures";
import { create, get, kubectlOk } from "../../test/integration/harness/kubectl";
import { Operator, removeWebhooks } from "../../test/integration/harness/operator";
import { waitFor } from "../../test/integration/harness/wait";
import { Load, postmasterPid } from "../../test/e2e/load";
import { missingAcknowledgedRows } from "../../test/e2e/load/rows";
import { appCredentials, psql } from "../../test/e2e/psql";
import { readConfig } from "../../capabilities/database/lib/config";
import { isSmoke, runStart, saveResult } from "../lib/result";
import type { FailoverMode, FailoverParameters } from "../report/failover";
import { runMain } from "../lib/main";
import { stopOperator } from "../lib/operator";

const SMOKE = isSmoke();
const FAILOVERS = Number(process.env.FAILOVERS ?? (SMOKE ? 1 : 10));
const FAULT = (process.env.FAULT ?? "delete") as "delete" | "kill" | "stop";
const MODES = (process.env.MODES ?? (SMOKE ? "async" : "async,sync")).split(",");
const INSTANCES = Number(process.env.INSTANCES ?? (SMOKE ? 2 : 3));

interface Status {
  phase?: string;
  currentPrimary?: string;
  instances?: { name: string; ready: boolean; role: string; streaming?: boolean }[];
}

const statusOf = (ns: string, db: string): Status =>
  (get("database", ns, db)?.status ?? {}) as Status;

async function healthy(ns: string, db: string): Promise<Status> {
  return waitFor(
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
}

function inject(ns: string, pod: string): () => void {
  const obj = get("pod", ns, pod)!;
  if (FAULT === "delete") {
    kubectlOk(["delete", "pod", pod, "-n", ns, "--wait=false"]);
    return () => undefined;
  }
  const pid = postmasterPid(obj.metadata.uid!);
  process.kill(pid, FAULT === "kill" ? "SIGKILL" : "SIGSTOP");
  return () => {
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // fenced: gone
    }
  };
}

const percentile = (values: number[], p: number): number | null => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? null
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** The mode's line in the console table. */
function summary(m: FailoverMode): string {
  if (m.failovers === 0) return `${m.mode}: no successful failover (${m.failed.join("; ")})`;
  return [
    `${m.mode.padEnd(6)} n=${m.failovers}/${m.attempted} fault=${FAULT}`,
    `p50=${m.p50Ms} ms p95=${m.p95Ms} ms max=${m.maxMs} ms`,
    `acknowledged=${m.acknowledgedRows} lost=${m.lostRows} two-writable-rounds=${m.twoWritableRounds}`,
    ...(m.failed.length ? [`failed: ${m.failed.join("; ")}`] : []),
  ].join("  ");
}

async function runMode(mode: string): Promise<FailoverMode> {
  const ns = freshNamespace(`bench-failover-${mode}`);
  const db = "bench";
  create(
    database(ns, db, {
      instances: INSTANCES,
      ...(mode === "sync" ? { postgresql: { synchronous: { mode: "quorum", number: 1 } } } : {}),
    }),
  );
  await healthy(ns, db);
  const creds = appCredentials(ns, db);
  await waitFor("SQL", () => psql(creds, "select 1") === "1", { timeoutMs: 60_000 });
  psql(creds, "create table load (id bigint primary key, at timestamptz default now())");
  const load = new Load(ns, db);
  load.start();
  await waitFor("writes", () => load.acknowledged() > 20, { timeoutMs: 60_000 });
  const times: number[] = [];
  const failed: string[] = [];
  try {
    for (let i = 1; i <= FAILOVERS; i++) {
      const primary = statusOf(ns, db).currentPrimary!;
      const ip = String((get("pod", ns, primary)?.status as { podIP?: string }).podIP);
      const t0 = Date.now();
      const undo = inject(ns, primary);
      try {
        const ack = await waitFor("a write on another server", () => load.firstAckAfter(t0, ip), {
          timeoutMs: 180_000,
          intervalMs: 100,
        });
        times.push(ack.at - t0);
        console.log(`${mode} #${i}: ${primary} → ${ack.server}: ${ack.at - t0} ms`);
      } catch (err) {
        failed.push(`#${i}: ${(err as Error).message}`);
      } finally {
        undo();
      }
      await healthy(ns, db);
    }
  } finally {
    await load.stop();
  }
  const rows = await missingAcknowledgedRows(creds, "load", load.acknowledgedRanges(), 120_000);
  const violations = load.violations().length;
  kubectlOk(["delete", "namespace", ns, "--wait=false"]);
  return {
    mode,
    failovers: times.length,
    attempted: FAILOVERS,
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    maxMs: percentile(times, 100),
    acknowledgedRows: rows.acknowledged,
    lostRows: rows.missing,
    twoWritableRounds: violations,
    failed,
  };
}

async function main(): Promise<void> {
  const start = runStart();
  await installCrd();
  const operator = new Operator("bench-failover", {
    LOG_LEVEL: "info",
  });
  await operator.start();
  const modes: FailoverMode[] = [];
  try {
    for (const mode of MODES) modes.push(await runMode(mode));
  } finally {
    await stopOperator(operator);
    removeWebhooks();
  }
  console.log("\n=== bench/failover: fault → first write acknowledged by the new primary ===");
  for (const m of modes) console.log(summary(m));
  const config = readConfig();
  const parameters: FailoverParameters = {
    failovers: FAILOVERS,
    fault: FAULT,
    modes: MODES,
    instances: INSTANCES,
    probe: {
      intervalMs: config.probeIntervalMs,
      timeoutMs: config.probeTimeoutMs,
      failureThreshold: config.probeFailureThreshold,
    },
  };
  saveResult("failover", start, parameters, { modes }, SMOKE);
}

runMain(main);
