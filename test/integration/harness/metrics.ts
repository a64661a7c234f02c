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

/** GET on a local HTTP port; undefined when nothing answers. */
export const httpText = (port: number, path: string): Promise<string | undefined> =>
  new Promise(resolve => {
    // Generous: a scrape waits for the event loop, which a busy operator keeps for a while.
    const req = httpGet({ host: "127.0.0.1", port, path, timeout: 15_000 }, res => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", c => (body += c));
      res.on("end", () => resolve(res.statusCode === 200 ? body : undefined));
    });
    req.on("error", () => resolve(undefined));
    req.on("timeout", () => req.destroy());
  });

/** Sum of the samples of `name` (optionally only lines containing `filter`) in a scrape. */
export function metricValue(scrape: string, name: string, filter = ""): number {
  return scrape
    .split("\n")
    .filter(l => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && l.includes(filter))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

/** One metric of the operator listening on `port`; throws when it does not answer. */
export async function scrapeMetric(port: number, name: string, filter = ""): Promise<number> {
  const text = await httpText(port, "/metrics");
  if (text === undefined) throw new Error(`no metrics endpoint answers on port ${port}`);
  return metricValue(text, name, filter);
}
