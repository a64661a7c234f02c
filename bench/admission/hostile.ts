/**
 * Ordinary admission latency, quiet and with hostile requests alongside: p50/p99 at 1 and 10
 * concurrent, straight to the webhook server and through the apiserver (dry-run creates). The
 * hostile loop sends, one after another until the measurement ends: an 8 MiB review, one nested
 * 200,000 deep, one with 200 long unknown parameter names, and a 40 MiB one.
 */
import {
  costlyReview,
  deeplyNestedReview,
  ordinaryDatabase,
  paddedReview,
  postToWebhook,
  review,
  WebhookTarget,
  webhookTarget,
} from "../../test/integration/harness/admission-review";
import { apiClient, percentile, pool } from "../lib/apiclient";
import { fmt } from "../lib/process";
import type { HostileRow } from "../report/admission";

const TIMEOUT_MS = 10_000; // the apiserver's patience with a webhook

interface Figures {
  p50: number;
  p99: number;
  failed: number;
}

const figures = (results: { ms: number; ok: boolean }[]): Figures => ({
  p50: percentile(
    results.map(r => r.ms),
    0.5,
  ),
  p99: percentile(
    results.map(r => r.ms),
    0.99,
  ),
  failed: results.filter(r => !r.ok).length,
});

interface HostileStats {
  sent: number;
  refused: number;
  /** How long the webhook took to answer each kind (p50 / max). */
  perKind: string;
}

/**
 * Sends hostile reviews back to back until `stop()`. The bodies are built once, before: building
 * a 40 MiB string on every send would stall this process's own event loop, and the ordinary
 * requests it times with it.
 */
function hostileLoop(ns: string): { stop: () => Promise<HostileStats> } {
  const mutate = webhookTarget("mutating");
  const validate = webhookTarget("validating");
  const kinds: [string, WebhookTarget, string][] = [
    ["8 MiB", mutate, paddedReview("h-large", ns, 8 * 1024 * 1024)],
    ["200k deep", mutate, deeplyNestedReview("h-deep", ns, 200_000)],
    ["costly", validate, costlyReview("h-costly", ns)],
    ["40 MiB", mutate, paddedReview("h-huge", ns, 40 * 1024 * 1024)],
  ];
  const times = new Map<string, number[]>(kinds.map(([k]) => [k, []]));
  let running = true;
  let sent = 0;
  let refused = 0;
  const loop = (async () => {
    while (running) {
      const [kind, path, body] = kinds[sent++ % kinds.length];
      const reply = await postToWebhook(path, body, TIMEOUT_MS).catch(() => undefined);
      if (reply) times.get(kind)?.push(reply.ms);
      if (reply && reply.status === 200 && /"allowed":false/.test(reply.text)) refused++;
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      const perKind = [...times.entries()]
        .filter(([, ms]) => ms.length > 0)
        .map(([k, ms]) => `${k} ${fmt(percentile(ms, 0.5))}/${fmt(Math.max(...ms))}`)
        .join(", ");
      return { sent, refused, perKind };
    },
  };
}

async function direct(ns: string, requests: number, concurrency: number): Promise<Figures> {
  const paths = [webhookTarget("mutating"), webhookTarget("validating")];
  const results = await pool(requests, concurrency, async i => {
    const body = review(`o-${i}`, ordinaryDatabase(ns, `latency-${i}`));
    const reply = await postToWebhook(paths[i % 2], body, TIMEOUT_MS).catch(() => undefined);
    const ok = reply?.status === 200 && /"allowed":true/.test(reply.text);
    return { ms: reply?.ms ?? TIMEOUT_MS, ok };
  });
  return figures(results);
}

async function throughApiserver(ns: string, requests: number, concurrency: number) {
  const api = apiClient(concurrency);
  const path = `/apis/pgkeeper.dev/v1alpha1/namespaces/${ns}/databases?dryRun=All`;
  const results = await pool(requests, concurrency, async i => {
    const r = await api("POST", path, ordinaryDatabase(ns, `latency-${i}`));
    return { ms: r.ms, ok: r.status === 201 };
  });
  return figures(results);
}

const row = (label: string, quiet: Figures, heavy: Figures) =>
  `${label.padEnd(48)} ${fmt(quiet.p50).padStart(7)} / ${fmt(quiet.p99).padStart(7)} ms   ${fmt(heavy.p50).padStart(7)} / ${fmt(heavy.p99).padStart(7)} ms   p99 x${fmt(heavy.p99 / quiet.p99)}   failed ${quiet.failed} / ${heavy.failed}`;

/** Its rows: each way of sending, quiet then with hostile requests alongside. */
export async function latencyWithHostileAlongside(
  ns: string,
  requests: number,
): Promise<HostileRow[]> {
  const rows: HostileRow[] = [];
  console.log(
    `\n=== ordinary admission latency, quiet vs hostile requests alongside (${requests} requests each) ===`,
  );
  console.log(`${"".padEnd(48)}   quiet p50 / p99          hostile p50 / p99`);
  for (const concurrency of [1, 10]) {
    for (const [path, label, measure] of [
      ["webhook", "straight to the webhook", direct],
      ["apiserver", "through the apiserver (dry-run)", throughApiserver],
    ] as const) {
      await measure(ns, concurrency, concurrency); // warm-up
      const quiet = await measure(ns, requests, concurrency);
      const hostile = hostileLoop(ns);
      const heavy = await measure(ns, requests, concurrency);
      const { sent, refused, perKind } = await hostile.stop();
      console.log(
        `${row(`${label}, ${concurrency} concurrent`, quiet, heavy)}   (${sent} hostile sent, ${refused} refused; answered in p50/max ms: ${perKind})`,
      );
      const figure = (f: Figures) => ({ p50Ms: f.p50, p99Ms: f.p99, failed: f.failed });
      rows.push({
        path,
        concurrency,
        quiet: figure(quiet),
        hostile: figure(heavy),
        hostileSent: sent,
        hostileRefused: refused,
      });
    }
  }
  return rows;
}
