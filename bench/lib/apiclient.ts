/**
 * A minimal HTTPS client for the local apiserver with the admin kubeconfig's credentials and a
 * keep-alive pool, so 50 concurrent requests cost 50 sockets, not 50 kubectl processes.
 */
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { load } from "js-yaml";
import { env } from "../../test/integration/harness/env";

interface KubeConfig {
  clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
  users: { user: { "client-certificate-data": string; "client-key-data": string } }[];
}

export interface Response {
  status: number;
  body: string;
  ms: number;
}

export type Requester = (method: string, path: string, body?: unknown) => Promise<Response>;

export interface ClientOptions {
  /** Give up (reject) after this long without a complete answer. */
  timeoutMs?: number;
  /** Keep at most this many characters of a body (the rest is read and dropped). */
  maxBodyChars?: number;
}

const b64 = (s: string) => Buffer.from(s, "base64");

/** A requester against `base` (the apiserver from the kubeconfig unless given), `sockets` wide. */
export function apiClient(
  sockets: number,
  base?: { url: string; insecure: boolean },
  options: ClientOptions = {},
): Requester {
  const cfg = load(readFileSync(env.kubeconfig, "utf8")) as KubeConfig;
  const cluster = cfg.clusters[0].cluster;
  const user = cfg.users[0].user;
  const url = new URL(base?.url ?? cluster.server);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: sockets,
    ...(base?.insecure
      ? { rejectUnauthorized: false }
      : {
          ca: b64(cluster["certificate-authority-data"]),
          cert: b64(user["client-certificate-data"]),
          key: b64(user["client-key-data"]),
        }),
  });
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          agent,
          headers: payload
            ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) }
            : {},
        },
        res => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            if (options.maxBodyChars === undefined || text.length < options.maxBodyChars)
              text += c.slice(0, (options.maxBodyChars ?? Infinity) - text.length);
          });
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              body: text,
              ms: Number(process.hrtime.bigint() - started) / 1e6,
            }),
          );
        },
      );
      req.on("error", reject);
      if (options.timeoutMs !== undefined) {
        const ms = options.timeoutMs;
        req.setTimeout(ms, () => req.destroy(new Error(`no answer within ${ms} ms`)));
      }
      if (payload) req.write(payload);
      req.end();
    });
}

/** Runs `task(i)` for i in [0, total) with at most `concurrency` in flight. */
export async function pool<T>(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(total);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return results;
}

/** Exact percentile of a list of durations (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
