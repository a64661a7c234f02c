/**
 * The endpoint Prometheus scrapes for our metrics: GET /metrics on its own port (Pepr's port
 * serves Pepr's metrics over TLS from a private registry we cannot add histograms to).
 * Plain HTTP by default; optionally HTTPS and a bearer token, both read from files so that a
 * mounted Secret's renewal is served without a restart.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { IncomingMessage, RequestListener, Server, ServerResponse, createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { Registry } from "prom-client";

export interface MetricsEndpointOptions {
  /** 0 picks a free port (see `address()`). */
  port: number;
  host?: string;
  /** PEM files: certificate (chain) and key. Their renewal is picked up within `reloadMs`. */
  tls?: { certFile: string; keyFile: string };
  /** A file holding the token scrapers must send as `Authorization: Bearer <token>`. */
  tokenFile?: string;
  /** How often the TLS files are looked at for a change (default 30 s). */
  reloadMs?: number;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Whether `req` carries the token in `tokenFile` (read per request: a rotated token counts). */
async function authorized(req: IncomingMessage, tokenFile: string): Promise<boolean> {
  const expected = (await readFile(tokenFile, "utf8")).trim();
  // An empty token file would admit an empty bearer: admit nobody instead.
  if (expected === "") return false;
  const header = req.headers.authorization ?? "";
  const sent = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
  // Digests of equal length: the comparison says nothing about the token's length or prefix.
  return timingSafeEqual(digest(sent), digest(expected));
}

function handler(registry: Registry, tokenFile: string | undefined): RequestListener {
  const serve = (res: ServerResponse) =>
    registry
      .metrics()
      .then(body => res.writeHead(200, { "Content-Type": registry.contentType }).end(body))
      .catch(() => res.writeHead(500).end());
  return (req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    if (!tokenFile) {
      void serve(res);
      return;
    }
    authorized(req, tokenFile)
      .then(ok => (ok ? serve(res) : res.writeHead(401, { "WWW-Authenticate": "Bearer" }).end()))
      // The token file is unreadable: a configuration fault, and still no one gets in.
      .catch(() => res.writeHead(500).end());
  };
}

async function readPair(tls: { certFile: string; keyFile: string }) {
  const [cert, key] = await Promise.all([readFile(tls.certFile), readFile(tls.keyFile)]);
  return { cert, key };
}

const mtimes = async (tls: { certFile: string; keyFile: string }) =>
  (await Promise.all([stat(tls.certFile), stat(tls.keyFile)])).map(s => s.mtimeMs).join(" ");

/**
 * Sets the server's certificate anew whenever the files' modification times change. A pair
 * caught half-written fails to load and is tried again at the next look; the old one stays.
 */
function reloadOnChange(
  server: Server,
  tls: { certFile: string; keyFile: string },
  first: string,
  everyMs: number,
): void {
  let seen = first;
  const timer = setInterval(() => {
    mtimes(tls)
      .then(async now => {
        if (now === seen) return;
        (server as unknown as { setSecureContext(o: object): void }).setSecureContext(
          await readPair(tls),
        );
        seen = now;
      })
      .catch(() => undefined);
  }, everyMs);
  timer.unref();
  server.once("close", () => clearInterval(timer));
}

/** Serves `registry` as `options` say. Resolves when listening; rejects on unreadable TLS files. */
export async function serveMetrics(
  registry: Registry,
  options: MetricsEndpointOptions,
): Promise<Server> {
  const listener = handler(registry, options.tokenFile);
  let server: Server;
  if (options.tls) {
    const first = await mtimes(options.tls);
    server = createHttpsServer(await readPair(options.tls), listener);
    reloadOnChange(server, options.tls, first, options.reloadMs ?? 30_000);
  } else {
    server = createServer(listener);
  }
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
