/** The summary table of a test run (test-summary.ts), from its steps and jest reports. Pure. */

export interface StepRow {
  name: string;
  kind: "foreground" | "background" | "wait";
  start: number;
  end: number;
  status: number;
}

/** The parts of jest's --json report the table uses. */
export interface JestReport {
  numTotalTests: number;
  numFailedTests: number;
  testResults: { name: string; startTime: number; endTime: number; status: string }[];
}

export function parseSteps(tsv: string): StepRow[] {
  return tsv
    .split("\n")
    .filter(line => line.trim() !== "")
    .map(line => {
      const [name, kind, start, end, status] = line.split("\t");
      return {
        name,
        kind: kind as StepRow["kind"],
        start: Number(start),
        end: Number(end),
        status: Number(status),
      };
    });
}

const minutes = (seconds: number): string => (seconds / 60).toFixed(1);

/** The jest tier a step ran, by its name ("unit tests" → unit). */
const tierOf = (step: string, tiers: string[]): string | undefined =>
  tiers.find(t => step.toLowerCase().startsWith(t));

export function summarize(
  steps: StepRow[],
  reports: Record<string, JestReport>,
  shortPath: (path: string) => string = p => p,
): string {
  const tiers = Object.keys(reports);
  const rows = steps.map(s => {
    const report = reports[tierOf(s.name, tiers) ?? ""];
    const result = s.status === 0 ? "ok" : `FAILED (${s.status})`;
    const name = s.kind === "background" ? `${s.name} (beside the others)` : s.name;
    return [
      name,
      result,
      report ? String(report.testResults.length) : "",
      report ? `${report.numTotalTests - report.numFailedTests}/${report.numTotalTests}` : "",
      minutes(s.end - s.start),
    ];
  });
  const first = Math.min(...steps.map(s => s.start));
  const last = Math.max(...steps.map(s => s.end));
  const header = ["step", "result", "files", "tests passed", "min"];
  const total = ["wall time", "", "", "", steps.length > 0 ? minutes(last - first) : "0.0"];
  const table = [header, ...rows, total];
  const widths = header.map((_, i) => Math.max(...table.map(r => r[i].length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i >= 2 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join("  ");
  const slowest = Object.values(reports)
    .flatMap(r => r.testResults)
    .map(t => ({ name: shortPath(t.name), seconds: (t.endTime - t.startTime) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 5);
  return [
    "",
    "=== npm test: summary ===",
    line(table[0]),
    ...rows.map(line),
    line(total),
    "",
    "slowest test files: " +
      (slowest.length > 0
        ? slowest.map(s => `${s.name} ${minutes(s.seconds)} min`).join(", ")
        : "none recorded"),
  ].join("\n");
}
