import { X509Certificate, createPrivateKey } from "node:crypto";
import type { AddressInfo } from "node:net";
import { connect, createServer } from "node:tls";
import { certificate, newKeyPair, publicKeyOf } from "./x509";

const NOW = new Date("2026-12-02T00:00:00Z");
const YEAR = 365 * 24 * 3600 * 1000;

function authority(commonName = "pgkeeper orders CA") {
  const pair = newKeyPair();
  const cert = certificate({
    commonName,
    isCA: true,
    notBefore: NOW,
    notAfter: new Date(NOW.getTime() + 10 * YEAR),
    publicKeyDer: pair.publicKeyDer,
    selfKey: pair.key,
  });
  return { cert, key: pair.key };
}

function leaf(
  ca: { cert: string; key: string },
  commonName: string,
  dnsNames: string[],
  notAfter = new Date(NOW.getTime() + YEAR),
) {
  const pair = newKeyPair();
  const cert = certificate({
    commonName,
    dnsNames,
    isCA: false,
    notBefore: NOW,
    notAfter,
    publicKeyDer: pair.publicKeyDer,
    issuer: { commonName: new X509Certificate(ca.cert).subject.replace(/^CN=/, ""), key: ca.key },
  });
  return { cert, key: pair.key };
}

describe("x509", () => {
  it("makes a self-signed CA that Node parses and verifies", () => {
    const ca = authority();
    const x = new X509Certificate(ca.cert);
    expect(x.ca).toBe(true);
    expect(x.subject).toBe("CN=pgkeeper orders CA");
    expect(x.issuer).toBe(x.subject);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(new Date(x.validFrom).toISOString()).toBe(NOW.toISOString());
    expect(publicKeyOf(ca.key).equals(x.publicKey.export({ type: "spki", format: "der" }))).toBe(
      true,
    );
  });

  it("signs leaf certificates with names, checked against the CA", () => {
    const ca = authority();
    const server = leaf(ca, "orders-0", [
      "orders-0.orders-hl.prod.svc",
      "orders-1.orders-hl.prod.svc",
    ]);
    const x = new X509Certificate(server.cert);
    expect(x.ca).toBe(false);
    expect(x.checkIssued(new X509Certificate(ca.cert))).toBe(true);
    expect(x.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(x.checkHost("orders-1.orders-hl.prod.svc")).toBe("orders-1.orders-hl.prod.svc");
    expect(x.checkHost("orders-2.orders-hl.prod.svc")).toBeUndefined();
    expect(x.subjectAltName).toBe(
      "DNS:orders-0.orders-hl.prod.svc, DNS:orders-1.orders-hl.prod.svc",
    );
    expect(x.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
    expect(createPrivateKey(server.key).asymmetricKeyType).toBe("ec");
  });

  it("encodes dates from 2050 on as GeneralizedTime", () => {
    const ca = authority();
    const later = leaf(ca, "x", ["x"], new Date("2051-06-01T12:00:00Z"));
    expect(new Date(new X509Certificate(later.cert).validTo).toISOString()).toBe(
      "2051-06-01T12:00:00.000Z",
    );
  });

  it("holds up a real mutual-TLS handshake, and a certificate from another CA is refused", async () => {
    const ca = authority();
    const server = leaf(ca, "server", ["localhost"]);
    const client = leaf(ca, "pgkeeper-backup", []);
    const stranger = leaf(authority("someone else"), "pgkeeper-backup", []);
    const tlsServer = createServer(
      {
        cert: server.cert,
        key: server.key,
        ca: ca.cert,
        requestCert: true,
        rejectUnauthorized: true,
      },
      socket => socket.end(`hello ${socket.getPeerCertificate().subject.CN}`),
    );
    await new Promise<void>(resolve => tlsServer.listen(0, "127.0.0.1", resolve));
    const port = (tlsServer.address() as AddressInfo).port;
    const talk = (who: { cert: string; key: string }) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({
          host: "127.0.0.1",
          port,
          servername: "localhost",
          ca: ca.cert,
          cert: who.cert,
          key: who.key,
        });
        let data = "";
        socket.on("data", chunk => (data += chunk));
        socket.on("end", () => resolve(data));
        socket.on("error", reject);
      });
    try {
      await expect(talk(client)).resolves.toBe("hello pgkeeper-backup");
      // TLS 1.3: the client learns of the refusal after its handshake, as a reset or a bare end.
      const answer = await talk(stranger).catch(() => "refused");
      expect(answer).not.toContain("hello");
    } finally {
      tlsServer.close();
    }
  });
});
