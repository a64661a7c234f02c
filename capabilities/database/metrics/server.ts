/**
 * The HTTP endpoint Prometheus scrapes for our metrics: GET /metrics on its own port (Pepr's
 * port serves Pepr's metrics over TLS from a private registry we cannot add histograms to).
 */
import { Server, createServer } from "node:http";
import { Registry } from "prom-client";

/** Serves `registry` on `port` (0 picks a free port; see `address()`). Resolves when listening. */
export function serveMetrics(registry: Registry, port: number, host?: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    registry
      .metrics()
      .then(body => res.writeHead(200, { "Content-Type": registry.contentType }).end(body))
      .catch(() => res.writeHead(500).end());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
