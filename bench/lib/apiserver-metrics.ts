/**
 * The apiserver's own Prometheus metrics (GET /metrics through kubectl): request counts by verb
 * and resource, and the admission webhook latency histogram.
 */
import { kubectlBig } from "./kubectl";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (enough of it for counters and histograms). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

export const scrapeApiserver = (): Sample[] =>
  parseMetrics(kubectlBig(["get", "--raw", "/metrics"]));

/** Sum of `name` grouped by one label, over samples passing `filter`. */
export function sumBy(
  samples: Sample[],
  name: string,
  label: string,
  filter: (s: Sample) => boolean = () => true,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) {
    if (s.name !== name || !filter(s)) continue;
    const key = s.labels[label] ?? "";
    out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

/** `after - before`, key by key. */
export function delta(
  after: Record<string, number>,
  before: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

/**
 * A quantile from the difference of two cumulative histogram scrapes (`le` buckets), linearly
 * interpolated inside the bucket, as Prometheus's histogram_quantile does.
 */
export function histogramQuantile(q: number, buckets: Record<string, number>): number | undefined {
  const sorted = Object.entries(buckets)
    .map(([le, count]) => [le === "+Inf" ? Infinity : Number(le), count] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total === 0) return undefined;
  const rank = q * total;
  let [prevLe, prevCount] = [0, 0];
  for (const [le, count] of sorted) {
    if (count >= rank) {
      if (le === Infinity) return prevLe;
      return prevLe + ((le - prevLe) * (rank - prevCount)) / Math.max(count - prevCount, 1e-9);
    }
    [prevLe, prevCount] = [le, count];
  }
  return undefined;
}
