/**
 * The generated sections of docs/benchmarks.md: each bench's committed results
 * (bench/results/<bench>.json) rendered as markdown. The docs generator replaces the text between
 * each section's markers with render()'s output; test/unit/bench-report.test.ts fails when the
 * doc and the JSON disagree.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_NAMES, BenchName, renderResultText } from "./benches";

export const RESULTS_DIR = join(__dirname, "..", "results");

const resultFile = (name: BenchName): string => join(RESULTS_DIR, `${name}.json`);

const sectionName = (name: BenchName): string => `bench ${name}`;

export const BENCH_SECTIONS: { file: string; name: string; render: () => string }[] =
  BENCH_NAMES.map(name => ({
    file: "docs/benchmarks.md",
    name: sectionName(name),
    render: () =>
      renderResultText(name, readFileSync(resultFile(name), "utf8"), `bench/results/${name}.json`),
  }));
