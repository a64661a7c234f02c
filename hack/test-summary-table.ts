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
  testResults: {
    name: string;
    startTime: number;
    endTime: number;
    status: string;
    /** A suite that failed to run at all says why here, with no assertion failed. */
    message?: string;
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

// eslint-disable-next-line no-control-regex -- jest colours its messages
const ansi = /\u001b\[[0-9;]*m/g;

/** The first line of a failure that says something (jest's own header lines skipped). */
const firstLine = (message: string | undefined): string =>
  (message ?? "")
    .replace(ansi, "")
    .split("\n")
    .map(l => l.trim())
    .find(l => l !== "" && !l.startsWith("●")) ?? "";

const MAX_FAILURES_LISTED = 10;

/**
 * Each failed test, by file and full name, with the first line of why: a CI log keeps only the
 * end of the run, and the failing tier's own log may be long gone by then.
 */
export function failures(
  reports: Record<string, JestReport>,
  shortPath: (path: string) => string = p => p,
): string[] {
  const all = Object.values(reports).flatMap(r =>
    r.testResults.flatMap(file => {
      const failed = (file.assertionResults ?? []).filter(a => a.status === "failed");
      if (failed.length === 0 && file.status === "failed")
        return [`${shortPath(file.name)}: ${firstLine(file.message)}`];
      return failed.map(
        a => `${shortPath(file.name)} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`,
      );
    }),
  );
  const listed = all.slice(0, MAX_FAILURES_LISTED).map(f => `  ${f}`);
  return all.length > MAX_FAILURES_LISTED
    ? [...listed, `  … and ${all.length - MAX_FAILURES_LISTED} more`]
    : listed;
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
  const failed = failures(reports, shortPath);
  return [
    "",
    "=== npm test: summary ===",
    ...(failed.length > 0 ? ["failed tests:", ...failed, ""] : []),
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
