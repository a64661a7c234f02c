/**
 * The server Pepr creates inside withAdmissionGuard: behind the guard, and keeping idle
 * keep-alive connections open longer than the apiserver does, so that the apiserver never sends
 * a review on a connection the server is closing (CI stop 22: "connection reset by peer", a 500).
 */
import https from "node:https";
import { AddressInfo } from "node:net";
import { connect, TLSSocket } from "node:tls";
import { certificate, newKeyPair } from "../lib/x509";
import { withAdmissionGuard } from "./install";
import { ADMISSION_LIMITS } from "./limits";

/** Go's http.Transport IdleConnTimeout, which the apiserver's webhook clients keep. */
const APISERVER_IDLE_TIMEOUT_MS = 90_000;

function selfSigned(): https.ServerOptions {
  const pair = newKeyPair();
  const now = Date.now();
  const cert = certificate({
    commonName: "localhost",
    dnsNames: ["localhost"],
    isCA: false,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3_600_000),
    publicKeyDer: pair.publicKeyDer,
    selfKey: pair.key,
  });
  return { key: pair.key, cert };
}

/** What Pepr's start does: create the HTTPS server with its app and listen. */
function startLikePepr(limits = ADMISSION_LIMITS): https.Server {
  let server: https.Server | undefined;
  withAdmissionGuard(() => {
    server = https.createServer(selfSigned(), (_req, res) => res.end("ok"));
  }, limits);
  if (!server) throw new Error("start created no server");
  return server;
}

it("keeps idle connections open longer than the apiserver does", () => {
  const server = startLikePepr();
  expect(server.keepAliveTimeout).toBeGreaterThan(APISERVER_IDLE_TIMEOUT_MS);
});

it("restores https.createServer after start", () => {
  const before = https.createServer;
  startLikePepr();
  expect(https.createServer).toBe(before);
});

/** Sends one request on `socket` and resolves with the raw response once its body is in. */
function ask(socket: TLSSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (/\r\n\r\nok$/.test(text)) {
        socket.off("data", onData);
        resolve(text);
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.once("close", () => reject(new Error("the server closed the connection")));
    socket.write("POST /mutate/x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}");
  });
}

it("serves a second request on a connection idle past Node's default keep-alive (5 s)", async () => {
  // 6 s of idleness is the input here, not a wait for a condition: Node's default closes at 5 s.
  const server = startLikePepr({ ...ADMISSION_LIMITS, keepAliveMs: 8000 });
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
  try {
    await new Promise<void>(resolve => socket.once("secureConnect", () => resolve()));
    expect(await ask(socket)).toMatch(/^HTTP\/1\.1 200/);
    await new Promise(resolve => setTimeout(resolve, 6000));
    expect(await ask(socket)).toMatch(/^HTTP\/1\.1 200/);
  } finally {
    socket.destroy();
    server.closeAllConnections();
    await new Promise(resolve => server.close(resolve));
  }
}, 20_000);
