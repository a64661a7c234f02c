/**
 * Scraping an operator's Prometheus endpoint (plain HTTP on loopback), and free ports for the
 * operator processes a test starts (never 3000: that one belongs to pepr dev).
 */
import { get as httpGet } from "node:http";
import { createServer } from "node:net";

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

/**
 * GET on a local HTTP port: the body of a 200, or why there is none. A new connection each time
 * (no keep-alive agent, Node's default since 19): a reused socket the server is closing as the
 * request goes out fails with ECONNRESET, which read as "nothing answers" (an integration-tier
 * failure on a busy machine).
 */
function get(port: number, path: string): Promise<{ body?: string; why?: string }> {
  return new Promise(resolve => {
    // Generous: a scrape waits for the event loop, which a busy operator keeps for a while.
    const req = httpGet({ host: "127.0.0.1", port, path, timeout: 15_000, agent: false }, res => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", c => (body += c));
      res.on("end", () =>
        resolve(res.statusCode === 200 ? { body } : { why: `HTTP ${res.statusCode}` }),
      );
    });
    req.on("error", err => resolve({ why: err.message }));
    req.on("timeout", () => req.destroy(new Error("no answer in 15 s")));
  });
}

/** GET on a local HTTP port; undefined when nothing answers. */
export const httpText = async (port: number, path: string): Promise<string | undefined> =>
  (await get(port, path)).body;

/** Sum of the samples of `name` (optionally only lines containing `filter`) in a scrape. */
export function metricValue(scrape: string, name: string, filter = ""): number {
  return scrape
    .split("\n")
    .filter(l => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && l.includes(filter))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

/** One metric of the operator listening on `port`; throws when it does not answer. */
export async function scrapeMetric(port: number, name: string, filter = ""): Promise<number> {
  const { body, why } = await get(port, "/metrics");
  if (body === undefined) throw new Error(`no metrics from port ${port}: ${why}`);
  return metricValue(body, name, filter);
}
