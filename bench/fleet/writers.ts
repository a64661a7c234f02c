/**
 * The fleet's background write load, a child process of bench/fleet (so the bench's synchronous
 * kubectl calls never pause it): one connection per Database through its `<db>-rw`, one insert
 * every 1/rate s (a steady load, not as fast as the machine goes: the figures would then measure
 * the machine), reconnecting after a failure. Every second it writes what it counted to
 * `<out>/counts.json` (written to a temporary name and renamed: the bench never reads half a file).
 *
 * Usage: node -r ts-node/register/transpile-only writers.ts <config.json>; stops on SIGTERM.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "pg";
import { openClient } from "../../test/e2e/load/pg-client";
import type { LoadConfig } from "../../test/e2e/load/load";
import { stopWhenOrphaned } from "../../test/e2e/load/orphan-guard";
import { countFailure } from "./writer-counts";
import type { WriterCounts } from "./writer-counts";

export interface WritersConfig {
  out: string;
  /** Inserts per second per Database. */
  rate: number;
  targets: { name: string; app: LoadConfig["app"] }[];
}

const TIMEOUT_MS = 2000;
let stopping = false;
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

async function write(target: WritersConfig["targets"][number], rate: number, counts: WriterCounts) {
  const everyMs = 1000 / rate;
  let client: Client | undefined;
  let next = Date.now() + Math.random() * everyMs; // spread the writers over the period
  while (!stopping) {
    await sleep(Math.max(0, next - Date.now()));
    next += everyMs;
    try {
      if (!client) {
        client = await openClient(target.app, TIMEOUT_MS);
        await client.query("create table if not exists fleet_load (at timestamptz default now())");
      }
      await client.query("insert into fleet_load default values");
      counts.acknowledged++;
    } catch (err) {
      countFailure(counts, err);
      const dead = client;
      client = undefined;
      void dead?.end().catch(() => undefined);
    }
    // A writer that fell behind (an outage) starts again from now, not with a burst.
    next = Math.max(next, Date.now());
  }
  await client?.end().catch(() => undefined);
}

function main(): void {
  const cfg = JSON.parse(readFileSync(process.argv[2], "utf8")) as WritersConfig;
  const counts: WriterCounts = { acknowledged: 0, failed: 0 };
  const file = join(cfg.out, "counts.json");
  const save = () => {
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  };
  const timer = setInterval(save, 1000);
  const stop = () => {
    stopping = true;
  };
  process.on("SIGTERM", stop);
  stopWhenOrphaned(stop);
  void Promise.all(cfg.targets.map(t => write(t, cfg.rate, counts))).then(() => {
    clearInterval(timer);
    save();
  });
}

main();
