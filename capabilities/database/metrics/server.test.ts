import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Server, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TLSSocket } from "node:tls";
import { Registry } from "prom-client";
import { certificate, newKeyPair } from "../lib/x509";
import { OperatorMetrics } from "./metrics";
import { serveMetrics } from "./server";

interface Answer {
  code?: number;
  body: string;
  serial?: string;
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

function fetchText(
  server: Server,
  path: string,
  opts: { token?: string; ca?: string } = {},
): Promise<Answer> {
  const headers = opts.token ? { authorization: `Bearer ${opts.token}` } : undefined;
  const common = { host: "127.0.0.1", port: portOf(server), path, headers };
  return new Promise((resolve, reject) => {
    const onResponse = (res: import("node:http").IncomingMessage) => {
      let body = "";
      const serial =
        res.socket instanceof TLSSocket ? res.socket.getPeerCertificate().serialNumber : undefined;
      res.on("data", c => (body += c));
      res.on("end", () => resolve({ code: res.statusCode, body, serial }));
    };
    const req = opts.ca
      ? httpsRequest({ ...common, ca: opts.ca, servername: "localhost", agent: false }, onResponse)
      : httpRequest(common, onResponse);
    req.on("error", reject).end();
  });
}

/** A CA and a leaf for localhost signed by it. */
function pki() {
  const ca = newKeyPair();
  const now = Date.now();
  const caCert = certificate({
    commonName: "metrics-ca",
    isCA: true,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
    publicKeyDer: ca.publicKeyDer,
    selfKey: ca.key,
  });
  const leaf = () => {
    const pair = newKeyPair();
    const cert = certificate({
      commonName: "localhost",
      dnsNames: ["localhost"],
      isCA: false,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 86_400_000),
      publicKeyDer: pair.publicKeyDer,
      issuer: { commonName: "metrics-ca", key: ca.key },
    });
    return { cert, key: pair.key };
  };
  return { caCert, leaf };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 20));
  }
}

describe("serveMetrics", () => {
  let dir: string;
  let server: Server | undefined;
  const registry = new Registry();
  new OperatorMetrics(registry).observeReconcile("success", 0.01);
  const SAMPLE = 'pgkeeper_reconcile_duration_seconds_count{result="success"} 1';

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "metrics-"));
  });
  afterEach(async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise(resolve => s.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the registry on GET /metrics and 404 elsewhere", async () => {
    server = await serveMetrics(registry, { port: 0, host: "127.0.0.1" });
    const ok = await fetchText(server, "/metrics");
    expect(ok.code).toBe(200);
    expect(ok.body).toContain(SAMPLE);
    expect((await fetchText(server, "/other")).code).toBe(404);
  });

  it("with a token file, answers 401 to no token and a wrong one, and follows a rotation", async () => {
    const tokenFile = join(dir, "token");
    writeFileSync(tokenFile, "first-token\n");
    server = await serveMetrics(registry, { port: 0, host: "127.0.0.1", tokenFile });
    expect((await fetchText(server, "/metrics")).code).toBe(401);
    expect((await fetchText(server, "/metrics", { token: "first" })).code).toBe(401);
    const ok = await fetchText(server, "/metrics", { token: "first-token" });
    expect(ok.code).toBe(200);
    expect(ok.body).toContain(SAMPLE);
    writeFileSync(tokenFile, "second-token");
    expect((await fetchText(server, "/metrics", { token: "first-token" })).code).toBe(401);
    expect((await fetchText(server, "/metrics", { token: "second-token" })).code).toBe(200);
  });

  it("admits no one when the token file is empty, and answers 500 when it is gone", async () => {
    const tokenFile = join(dir, "token");
    writeFileSync(tokenFile, "\n");
    server = await serveMetrics(registry, { port: 0, host: "127.0.0.1", tokenFile });
    expect((await fetchText(server, "/metrics", { token: "" })).code).toBe(401);
    rmSync(tokenFile);
    expect((await fetchText(server, "/metrics", { token: "x" })).code).toBe(500);
  });

  it("serves HTTPS that clients verify, refuses plain HTTP, and serves a renewed certificate without a restart", async () => {
    const { caCert, leaf } = pki();
    const tls = { certFile: join(dir, "tls.crt"), keyFile: join(dir, "tls.key") };
    const first = leaf();
    writeFileSync(tls.certFile, first.cert);
    writeFileSync(tls.keyFile, first.key);
    server = await serveMetrics(registry, { port: 0, host: "127.0.0.1", tls, reloadMs: 50 });
    const ok = await fetchText(server, "/metrics", { ca: caCert });
    expect(ok.code).toBe(200);
    expect(ok.body).toContain(SAMPLE);
    await expect(fetchText(server, "/metrics")).rejects.toThrow();

    const second = leaf();
    writeFileSync(tls.keyFile, second.key);
    writeFileSync(tls.certFile, second.cert);
    const servers = server;
    const renewed = await until("the renewed certificate to be served", async () => {
      const a = await fetchText(servers, "/metrics", { ca: caCert });
      return a.serial !== ok.serial ? a : undefined;
    });
    expect(renewed.code).toBe(200);
  });

  it("refuses to start when a TLS file cannot be read", async () => {
    const tls = { certFile: join(dir, "missing.crt"), keyFile: join(dir, "missing.key") };
    await expect(serveMetrics(registry, { port: 0, host: "127.0.0.1", tls })).rejects.toThrow(
      /ENOENT/,
    );
  });
});
