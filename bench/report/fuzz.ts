/** bench/fuzz's results (bench/fuzz/run.ts writes them) and their table. */
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { count, fixed } from "./format";
import { table } from "./table";

export interface FuzzParameters {
  seed: number;
  cases: number;
  from: number;
  concurrency: number;
  modes: ("apiserver" | "direct")[];
}

/** A group of cases the oracle and admission disagree on, or of failures, by key. */
export interface FuzzGroup {
  key: string;
  count: number;
  /** Case numbers to replay (bash bench/fuzz.sh --seed S --case N). */
  cases: number[];
}

export interface FuzzMode {
  mode: "apiserver" | "direct";
  cases: number;
  casesPerSecond: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  admitted: number;
  denied: number;
  failures: number;
  admittedInvalid: number;
  /** Admitted but invalid only by the CRD's schema and CEL rules (the apiserver's job). */
  admittedInvalidSchemaOnly: number;
  falseRefusals: number;
  unknown: number;
  /** The largest groups (null when transcribed from docs that named none). */
  groups: {
    failures: FuzzGroup[];
    admittedInvalid: FuzzGroup[];
    falseRefusals: FuzzGroup[];
  } | null;
}

export interface FuzzFigures {
  modes: FuzzMode[];
}

export type FuzzResult = BenchResult<FuzzParameters, FuzzFigures>;

function fuzzTable(p: FuzzParameters, modes: FuzzMode[]): string {
  const right = (header: string) => ({ header, align: "right" as const });
  return table(
    [
      { header: "run" },
      right("cases/s"),
      right("p50 / p99 ms"),
      right("admitted"),
      right("denied"),
      right("failures"),
      right("admitted but invalid"),
      right("false refusals"),
      right("unknown"),
    ],
    modes.map(m => [
      `seed ${p.seed}, ${count(m.cases)}, ${m.mode}`,
      fixed(m.casesPerSecond, 0),
      `${fixed(m.p50Ms)} / ${fixed(m.p99Ms, 0)}`,
      count(m.admitted),
      count(m.denied),
      `**${count(m.failures)}**`,
      m.admittedInvalidSchemaOnly > 0
        ? `${count(m.admittedInvalid)} (${count(m.admittedInvalidSchemaOnly)} schema/CEL only)`
        : count(m.admittedInvalid),
      count(m.falseRefusals),
      count(m.unknown),
    ]),
  );
}

const groupText = (g: FuzzGroup) =>
  `${g.key} (${g.count}; case${g.cases.length > 1 ? "s" : ""} ${g.cases.join(", ")})`;

function findings(m: FuzzMode): string | undefined {
  if (m.groups === null) return undefined;
  const parts = [
    ...m.groups.failures.map(g => `robustness failure: ${groupText(g)}`),
    ...m.groups.admittedInvalid.map(g => `admitted but invalid: ${groupText(g)}`),
    ...m.groups.falseRefusals.map(g => `false refusal: ${groupText(g)}`),
  ];
  return parts.length === 0 ? undefined : `- ${m.mode}: ${parts.join("; ")}`;
}

export const fuzzProblems = (r: FuzzResult): string[] =>
  r.figures.modes.length === 0
    ? ["no mode ran"]
    : r.figures.modes
        .filter(m => m.admitted + m.denied + m.failures !== m.cases || m.cases === 0)
        .map(m => `${m.mode}: outcomes do not add up to the cases`);

export function renderFuzz(r: FuzzResult): string {
  const p = r.parameters;
  const requests = r.figures.modes.reduce((n, m) => n + m.cases, 0);
  const failures = r.figures.modes.reduce((n, m) => n + m.failures, 0);
  const listed = r.figures.modes.map(findings).filter((s): s is string => s !== undefined);
  return [
    `\`bash bench/fuzz.sh --seed ${p.seed} --cases ${p.cases} --concurrency ${p.concurrency} --mode ${p.modes.length === 2 ? "both" : p.modes[0]}\`: seeded mutations of valid Databases through the apiserver (dry-run creates) and straight to the webhook, each outcome judged by the oracle (\`bench/fuzz/README.md\`). **${count(failures)} robustness failures** in ${count(requests)} requests.`,
    fuzzTable(p, r.figures.modes),
    ...(listed.length > 0
      ? [`The largest groups, by field or message:\n\n${listed.join("\n")}`]
      : []),
    describeRun(r),
  ].join("\n\n");
}
