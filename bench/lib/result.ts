/**
 * Writing a bench's results as JSON (the shape is bench/report/envelope.ts's): to
 * bench/results/<bench>.json after a full-size run, to a temporary directory after a smoke run,
 * or to $BENCH_RESULTS_DIR when set. What is written is read back and rendered as its docs
 * section, so a run whose figures cannot be rendered fails instead of committing them.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { BenchName, renderResultText } from "../report/benches";
import type { BenchResult, Machine } from "../report/envelope";
import { RESULTS_DIR } from "../report/sections";

/** A smoke run: the smallest meaningful size, seconds long; never writes bench/results. */
export const isSmoke = (argv: string[] = process.argv, env = process.env): boolean =>
  argv.includes("--smoke") || env.BENCH_SMOKE === "1";

function git(args: string[]): string | null {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return null;
  }
}

/** HEAD, marked dirty when tracked files besides the results themselves differ from it. */
function commitNow(): string | null {
  const head = git(["rev-parse", "--short", "HEAD"])?.trim();
  if (!head) return null;
  const changes = git([
    "status",
    "--porcelain",
    "--untracked-files=no",
    "--",
    ".",
    ":!bench/results",
  ]);
  return changes ? `${head}-dirty` : head;
}

const machineNow = (): Machine => {
  const [one, five, fifteen] = loadavg();
  return {
    nproc: availableParallelism(),
    memoryBytes: totalmem(),
    kernel: release(),
    cpu: cpus()[0]?.model ?? null,
    loadAverage: [one, five, fifteen],
  };
};

/** Taken when a run starts: its date, commit and machine (the load before the bench adds its own). */
export interface RunStart {
  date: string;
  commit: string | null;
  machine: Machine;
}

export const runStart = (): RunStart => ({
  date: new Date().toISOString(),
  commit: commitNow(),
  machine: machineNow(),
});

function resultsDir(smoke: boolean): string {
  if (process.env.BENCH_RESULTS_DIR) return process.env.BENCH_RESULTS_DIR;
  return smoke ? mkdtempSync(join(tmpdir(), "pgkeeper-bench-smoke-")) : RESULTS_DIR;
}

/** Writes the results, checks them by rendering them, and says where they went. */
export function saveResult<P, F>(
  bench: BenchName,
  start: RunStart,
  parameters: P,
  figures: F,
  smoke: boolean,
): string {
  const dir = resultsDir(smoke);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${bench}.json`);
  const result: BenchResult<P, F> = { bench, ...start, parameters, figures };
  const text = `${JSON.stringify(result, null, 2)}\n`;
  // Checked before it is written: a result that cannot be rendered never replaces a good one.
  renderResultText(bench, text, file);
  writeFileSync(file, text);
  console.log(`\nresults: ${file}`);
  return file;
}
