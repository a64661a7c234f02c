/** bench/admission's results (bench/admission/run.ts writes them) and their tables. */
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { fixed, pair } from "./format";
import { columns, table } from "./table";

export interface AdmissionParameters {
  creates: number;
  concurrencies: number[];
  persist: boolean;
  /** Ordinary requests per measure of the quiet/hostile comparison (null: not recorded). */
  latencyRequests: number | null;
  /** The admission pods `pepr deploy` installs (cluster), or `pepr dev` (absent: older runs). */
  operator?: "cluster" | "dev";
}

export interface Latency {
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface ApiserverRow {
  concurrency: number;
  createsPerSecond: number;
  failed: number | null;
  client: Latency;
  /** As the apiserver measured them (its histogram; p99 interpolated in its buckets). */
  mutate: Latency;
  validate: Latency;
}

export interface WebhookAlone extends Latency {
  kind: "validate" | "mutate";
  concurrency: number;
  reviewsPerSecond: number;
  answered: number | null;
  requests: number | null;
}

export interface HostileRow {
  path: "webhook" | "apiserver";
  concurrency: number;
  quiet: Latency & { failed: number };
  hostile: Latency & { failed: number };
  hostileSent: number | null;
  hostileRefused: number | null;
}

export interface AdmissionFigures {
  apiserver: ApiserverRow[];
  webhookAlone: WebhookAlone[];
  hostile: HostileRow[];
}

export type AdmissionResult = BenchResult<AdmissionParameters, AdmissionFigures>;

function apiserverTable(rows: ApiserverRow[]): string {
  return table(
    columns(
      "concurrent creates",
      "creates/s",
      "client create p50 / p99",
      "mutate webhook p50 / p99",
      "validate webhook p50 / p99",
    ),
    rows.map(r => [
      String(r.concurrency),
      fixed(r.createsPerSecond),
      pair(r.client.p50Ms, r.client.p99Ms),
      pair(r.mutate.p50Ms, r.mutate.p99Ms),
      pair(r.validate.p50Ms, r.validate.p99Ms),
    ]),
  );
}

const alone = (w: WebhookAlone) =>
  `${fixed(w.reviewsPerSecond, 0)} ${w.kind} reviews/s (p50 ${fixed(w.p50Ms, 0)} ms, p99 ${fixed(w.p99Ms, 0)} ms)`;

const PATHS = { webhook: "straight to the webhook", apiserver: "through the apiserver" };

function hostileTable(rows: HostileRow[]): string {
  return table(
    columns("ordinary reviews, p99", "quiet", "hostile alongside"),
    rows.map(r => [
      `${PATHS[r.path]}, ${r.concurrency}`,
      `${fixed(r.quiet.p99Ms)} ms`,
      `${fixed(r.hostile.p99Ms)} ms`,
    ]),
  );
}

export const admissionProblems = (r: AdmissionResult): string[] => {
  const f = r.figures;
  const errors: string[] = [];
  if (f.apiserver.length === 0) errors.push("no creates through the apiserver");
  if (f.apiserver.some(a => (a.failed ?? 0) > 0)) errors.push("ordinary creates failed");
  if (f.webhookAlone.some(w => (w.answered ?? 0) < (w.requests ?? 0)))
    errors.push("reviews went unanswered");
  if (f.hostile.some(h => h.quiet.failed + h.hostile.failed > 0))
    errors.push("ordinary reviews failed beside the hostile ones");
  return errors;
};

export function renderAdmission(r: AdmissionResult): string {
  const p = r.parameters;
  const f = r.figures;
  const webhook = f.webhookAlone;
  const failed = f.hostile.reduce((n, h) => n + h.quiet.failed + h.hostile.failed, 0);
  return [
    `\`npm run bench:admission -- --creates ${p.creates} --concurrency ${p.concurrencies.join(",")}${p.operator === "dev" ? " --operator dev" : ""}\`: ${p.creates} ${p.persist ? "" : "dry-run "}Database creates through the apiserver at each concurrency, ${p.operator === "cluster" ? "the webhooks served by the admission Deployment `pepr deploy` installs (2 pods behind its Service)" : "the operator under `pepr dev`"}; client latency from each request's own timing, webhook latency as the apiserver's histogram has it (interpolated in its buckets).`,
    apiserverTable(f.apiserver),
    ...(webhook.length > 0
      ? [
          `The webhook server alone, ${webhook[0].concurrency} at a time, answered ${webhook.map(alone).join(" and ")}.`,
        ]
      : []),
    ...(f.hostile.length > 0
      ? [
          `Ordinary reviews${p.latencyRequests === null ? "" : ` (${p.latencyRequests} per measure)`}, quiet and with hostile requests alongside (an 8 MiB review, one nested 200,000 deep, one with 200 long unknown parameter names, a 40 MiB one, in a loop):`,
          hostileTable(f.hostile),
          failed === 0 ? "No ordinary request failed." : `${failed} ordinary requests failed.`,
        ]
      : []),
    describeRun(r),
  ].join("\n\n");
}
