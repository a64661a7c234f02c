/**
 * bench/admission: the Database webhooks (Pepr's mutate + validate) under concurrent creates
 * through the apiserver, served as in production by the admission Deployment `pepr deploy`
 * installs (--operator cluster, the default; --operator dev: `pepr dev` on this machine, as the
 * smoke run does). Prints:
 * - the client-side create latency p50/p99, from each request's own timing (the figure goals
 *   are judged on), and webhook latency p50/p99 as the apiserver's histogram has it
 *   (apiserver_admission_webhook_admission_duration_seconds, per webhook type; interpolated);
 * - the webhook server's own throughput: AdmissionReviews/s sent straight to it, 50 at a time;
 * - p50/p99 at 1 and 10 concurrent, straight to the webhook and through the apiserver, quiet and
 *   with hostile requests (oversized, deeply nested, costly to validate) sent alongside in a loop
 *   (issue 14: ordinary requests must not pay for a heavy one).
 * Creates are dry-run by default (the webhooks run, nothing is stored, so reconciles do not
 * compete for the CPU); --persist stores them. Figures, not a test; also written as JSON
 * (bench/lib/result.ts). Run through bench/admission.sh
 * (npm run bench:admission -- --creates 1000 --concurrency 1,10,50: creates at each concurrency,
 * the webhook server alone at the highest). --smoke: 20 creates at 1 and 4, 10 latency requests.
 */
import { randomUUID } from "node:crypto";
import { database, freshNamespace, installCrd } from "../../test/integration/harness/fixtures";
import { webhookTarget } from "../../test/integration/harness/admission-review";
import { delta, histogramQuantile, scrapeApiserver, Sample } from "../lib/apiserver-metrics";
import { apiClient, percentile, pool } from "../lib/apiclient";
import { fmt } from "../lib/process";
import { isSmoke, runStart, saveResult } from "../lib/result";
import type { AdmissionParameters, ApiserverRow, Latency, WebhookAlone } from "../report/admission";
import { latencyWithHostileAlongside } from "./hostile";
import { runMain } from "../lib/main";
import { parsePlacement, startOperator } from "../lib/placement";
import { removeNamespace, requireQuietCluster } from "../lib/namespaces";

const WEBHOOK = "pepr-pgkeeper.pepr.dev";
const METRIC = "apiserver_admission_webhook_admission_duration_seconds_bucket";

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const arg = (name: string, fallback: number): number => Number(flag(name) ?? fallback);

/** p50 and p99 of a run's latencies, in ms. */
const latency = (values: number[]): Latency => ({
  p50Ms: values.length ? percentile(values, 0.5) : null,
  p99Ms: values.length ? percentile(values, 0.99) : null,
});

const inMs = (seconds: number | undefined) => (seconds === undefined ? null : seconds * 1000);

/** Cumulative buckets of the apiserver's webhook histogram for one webhook type. */
const buckets = (samples: Sample[], type: string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const s of samples)
    if (
      s.name === METRIC &&
      s.labels.name === WEBHOOK &&
      s.labels.type === type &&
      s.labels.operation === "CREATE"
    )
      out[s.labels.le] = (out[s.labels.le] ?? 0) + s.value;
  return out;
};

async function throughTheApiserver(
  ns: string,
  creates: number,
  concurrency: number,
  persist: boolean,
): Promise<ApiserverRow> {
  const api = apiClient(concurrency);
  const path = `/apis/pgkeeper.dev/v1alpha1/namespaces/${ns}/databases${persist ? "" : "?dryRun=All"}`;
  // Warm-up: connections, the webhook's first requests.
  await pool(concurrency, concurrency, i => api("POST", path, database(ns, `warm-${i}`)));
  const before = scrapeApiserver();
  const started = Date.now();
  const results = await pool(creates, concurrency, i => api("POST", path, database(ns, `db-${i}`)));
  const seconds = (Date.now() - started) / 1000;
  const after = scrapeApiserver();
  const failed = results.filter(r => r.status !== 201);
  console.log(
    `\n=== ${creates} ${persist ? "" : "dry-run "}creates through the apiserver, ${concurrency} concurrent ===`,
  );
  console.log(
    `creates/s                                  ${fmt(creates / seconds)} (${failed.length} failed${failed[0] ? `: ${failed[0].status} ${failed[0].body.slice(0, 200)}` : ""})`,
  );
  const client = latency(results.map(r => r.ms));
  console.log(
    `client create latency p50 / p99            ${fmt(client.p50Ms ?? undefined)} / ${fmt(client.p99Ms ?? undefined)} ms`,
  );
  const webhook = (type: string): Latency => {
    const d = delta(buckets(after, type), buckets(before, type));
    const p50 = histogramQuantile(0.5, d);
    const p99 = histogramQuantile(0.99, d);
    console.log(
      `webhook ${type === "admit" ? "mutate  " : "validate"} p50 / p99 (apiserver metric)   ${fmt(p50 === undefined ? undefined : p50 * 1000)} / ${fmt(p99 === undefined ? undefined : p99 * 1000)} ms over ${d["+Inf"] ?? 0} calls; buckets ${JSON.stringify(d)}`,
    );
    return { p50Ms: inMs(p50), p99Ms: inMs(p99) };
  };
  return {
    concurrency,
    createsPerSecond: creates / seconds,
    failed: failed.length,
    client,
    mutate: webhook("admit"),
    validate: webhook("validating"),
  };
}

async function webhookThroughput(
  ns: string,
  requests: number,
  concurrency: number,
): Promise<WebhookAlone[]> {
  const figures: WebhookAlone[] = [];
  for (const kind of ["validate", "mutate"] as const) {
    const target = webhookTarget(kind === "validate" ? "validating" : "mutating");
    const client = apiClient(concurrency, {
      url: `https://${target.host}:${target.port}`,
      insecure: true,
    });
    const path = target.path;
    const review = (i: number) => ({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: randomUUID(),
        kind: { group: "pgkeeper.dev", version: "v1alpha1", kind: "Database" },
        resource: { group: "pgkeeper.dev", version: "v1alpha1", resource: "databases" },
        requestKind: { group: "pgkeeper.dev", version: "v1alpha1", kind: "Database" },
        requestResource: { group: "pgkeeper.dev", version: "v1alpha1", resource: "databases" },
        name: `db-${i}`,
        namespace: ns,
        operation: "CREATE",
        userInfo: { username: "bench" },
        object: database(ns, `db-${i}`),
        oldObject: null,
        dryRun: true,
        options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
      },
    });
    await pool(concurrency, concurrency, i => client("POST", path, review(i)));
    const started = Date.now();
    const results = await pool(requests, concurrency, i => client("POST", path, review(i)));
    const seconds = (Date.now() - started) / 1000;
    const ok = results.filter(r => r.status === 200).length;
    const l = latency(results.map(r => r.ms));
    console.log(
      `webhook server alone, ${kind.padEnd(8)} ${fmt(requests / seconds)} reviews/s (${concurrency} concurrent, ${ok}/${requests} answered 200), latency p50 / p99 ${fmt(l.p50Ms ?? undefined)} / ${fmt(l.p99Ms ?? undefined)} ms`,
    );
    figures.push({
      kind,
      concurrency,
      reviewsPerSecond: requests / seconds,
      answered: ok,
      requests,
      ...l,
    });
  }
  return figures;
}

async function main(): Promise<void> {
  const smoke = isSmoke();
  const start = runStart();
  const latencyRequests = arg("latency-requests", smoke ? 10 : 400);
  const parameters: AdmissionParameters = {
    creates: arg("creates", smoke ? 20 : 1000),
    concurrencies: (flag("concurrency") ?? (smoke ? "1,4" : "1,10,50"))
      .split(",")
      .map(Number)
      .filter(n => n > 0),
    persist: process.argv.includes("--persist"),
    latencyRequests,
    operator: parsePlacement(flag("operator") ?? (smoke ? "dev" : "cluster")),
  };
  const { creates, concurrencies, persist } = parameters;
  await installCrd();
  await requireQuietCluster();
  const ns = freshNamespace("bench-admission");
  const operator = await startOperator(parameters.operator!, "bench-admission", {
    LOG_LEVEL: "warn",
  });
  try {
    const apiserver: ApiserverRow[] = [];
    for (const c of concurrencies)
      apiserver.push(await throughTheApiserver(ns, creates, c, persist));
    const webhookAlone = await webhookThroughput(ns, creates, Math.max(...concurrencies));
    const hostile = await latencyWithHostileAlongside(ns, latencyRequests);
    saveResult("admission", start, parameters, { apiserver, webhookAlone, hostile }, smoke);
  } finally {
    await removeNamespace(ns);
    await operator.stop();
  }
}

runMain(main);
