/**
 * A Prometheus scrape as the tests read it: GET /metrics over TLS (the server verified, no TLS
 * session resumed, so every scrape checks the certificate served), and the text parsed into its
 * samples.
 */
import { request } from "node:https";

export interface Scrape {
  families: Set<string>;
  /** The first sample of `name` whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

export function parseScrape(text: string): Scrape {
  const samples = text
    .split("\n")
    .filter(line => line !== "" && !line.startsWith("#"))
    .map(line => {
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)/.exec(line)!;
      return { name: m[1], labels: m[2] ?? "", value: Number(m[3]) };
    });
  return {
    families: new Set(samples.map(s => s.name)),
    value: (name, labels = {}) =>
      samples.find(
        s =>
          s.name === name &&
          Object.entries(labels).every(([k, v]) => s.labels.includes(`${k}="${v}"`)),
      )?.value,
  };
}

export interface ScrapeTarget {
  host: string;
  port: number;
  /** The CA to verify the server against, and the name it must carry. */
  ca: string;
  servername: string;
}

/** GET /metrics: the status and the body (an error when the connection or TLS fails). */
export function getMetrics(t: ScrapeTarget): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ ...t, path: "/metrics", agent: false, timeout: 10_000 }, res => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${t.host}:${t.port}`)));
    req.on("error", reject);
    req.end();
  });
}
