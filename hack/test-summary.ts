/**
 * The table `npm test` ends with: every step of hack/test-all.sh with its time and result, the
 * jest tiers with their files and tests, and the slowest test files, from what the run left in
 * its test-logs folder (steps.tsv, and each tier's jest --json). One screen, so a regression in
 * the suite's time shows at the end of every run.
 *   ts-node hack/test-summary.ts <test-logs dir>
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { JestReport, StepRow, parseSteps, summarize } from "./test-summary-table";

const dir = process.argv[2];
if (!dir) throw new Error("usage: test-summary.ts <test-logs dir>");
const steps: StepRow[] = existsSync(join(dir, "steps.tsv"))
  ? parseSteps(readFileSync(join(dir, "steps.tsv"), "utf8"))
  : [];
const reports: Record<string, JestReport> = {};
for (const tier of ["unit", "postgres", "integration", "e2e"]) {
  const file = join(dir, `${tier}.json`);
  if (existsSync(file)) reports[tier] = JSON.parse(readFileSync(file, "utf8")) as JestReport;
}
console.log(summarize(steps, reports, path => relative(process.cwd(), path)));
