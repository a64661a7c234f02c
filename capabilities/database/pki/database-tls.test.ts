import { X509Certificate } from "node:crypto";
import { KubeObject } from "../cluster/cluster";
import { CA_SECRET_KEYS, DatabaseTls, TLS_SECRET_KEYS } from "../specs/tls";
import { ReconcileError } from "../lib/errors";
import { CA_LIFETIME_DAYS } from "./policy";
import { tlsMaterial as material } from "./database-tls";

const tlsMaterial = (...args: Parameters<typeof material>): DatabaseTls => material(...args).tls;

const DAY = 24 * 3600 * 1000;
const NOW = new Date("2026-12-03T10:00:00Z");
const later = (days: number) => new Date(NOW.getTime() + days * DAY);
const NAMES = ["orders-rw", "orders-ro.shop.svc", "*.orders-hl.shop.svc"];

/** The Secrets as the apiserver would hand them back after applying `tls`. */
function stored(tls: DatabaseTls): { ca: KubeObject; tls: KubeObject } {
  const secret = (keys: Partial<Record<keyof DatabaseTls, string>>): KubeObject => ({
    apiVersion: "v1",
    kind: "Secret",
    data: Object.fromEntries(
      Object.entries(keys).map(([part, key]) => [
        key,
        Buffer.from(tls[part as keyof DatabaseTls]).toString("base64"),
      ]),
    ),
  });
  return { ca: secret(CA_SECRET_KEYS), tls: secret(TLS_SECRET_KEYS) };
}

const cert = (pem: string) => new X509Certificate(pem);
const first = tlsMaterial("orders", {}, NAMES, NOW);

describe("tlsMaterial", () => {
  it("issues a CA and four leaves it signs, each for its purpose", () => {
    const ca = cert(first.caCert);
    expect(ca.ca).toBe(true);
    expect(first.serverCa).toBe(first.caCert);
    const leaves = [first.serverCert, first.replicationCert, first.operatorCert, first.monitorCert];
    for (const leaf of leaves) expect(cert(leaf).verify(ca.publicKey)).toBe(true);
    expect(cert(first.replicationCert).subject).toBe("CN=streaming_replica");
    expect(cert(first.operatorCert).subject).toBe("CN=postgres");
    expect(cert(first.monitorCert).subject).toBe("CN=pgkeeper_monitor");
    expect(cert(first.serverCert).subjectAltName).toBe(NAMES.map(n => `DNS:${n}`).join(", "));
    expect(Date.parse(ca.validTo)).toBeGreaterThan(later(CA_LIFETIME_DAYS - 1).getTime());
  });

  it("keeps everything while it is sound (nothing is regenerated)", () => {
    expect(tlsMaterial("orders", stored(first), NAMES, later(200))).toEqual(first);
  });

  it("adds the monitor's certificate to a CA Secret from before it, keeping everything else", () => {
    const { ca, tls } = stored(first);
    const data = { ...(ca.data as Record<string, string>) };
    delete data[CA_SECRET_KEYS.monitorCert];
    delete data[CA_SECRET_KEYS.monitorKey];
    const next = tlsMaterial("orders", { ca: { ...ca, data }, tls }, NAMES, NOW);
    expect({ ...next, monitorCert: "", monitorKey: "" }).toEqual({
      ...first,
      monitorCert: "",
      monitorKey: "",
    });
    expect(cert(next.monitorCert).verify(cert(first.caCert).publicKey)).toBe(true);
  });

  it("renews a leaf a month before it ends with the same CA, so clients keep their ca.crt", () => {
    const renewed = tlsMaterial("orders", stored(first), NAMES, later(340));
    expect(renewed.caCert).toBe(first.caCert);
    expect(renewed.caKey).toBe(first.caKey);
    expect(renewed.serverCert).not.toBe(first.serverCert);
    expect(renewed.replicationCert).not.toBe(first.replicationCert);
    expect(cert(renewed.serverCert).verify(cert(first.caCert).publicKey)).toBe(true);
  });

  it("reissues the server certificate when it does not name every Service, keeping the rest", () => {
    const more = [...NAMES, "orders-rw.shop.svc.cluster.local"];
    const next = tlsMaterial("orders", stored(first), more, later(1));
    expect(next.serverCert).not.toBe(first.serverCert);
    expect(next.replicationCert).toBe(first.replicationCert);
    expect(next.operatorCert).toBe(first.operatorCert);
  });

  it("reissues a leaf whose key was replaced, or that another CA signed", () => {
    const other = tlsMaterial("other", {}, NAMES, NOW);
    const swapped = stored({
      ...first,
      serverKey: other.serverKey,
      operatorCert: other.operatorCert,
    });
    const next = tlsMaterial("orders", swapped, NAMES, later(1));
    expect(next.serverCert).not.toBe(first.serverCert);
    expect(next.operatorCert).not.toBe(other.operatorCert);
    expect(next.replicationCert).toBe(first.replicationCert);
  });

  it("makes a new CA (and leaves) once the CA has less than a year left", () => {
    const next = tlsMaterial("orders", stored(first), NAMES, later(CA_LIFETIME_DAYS - 300));
    expect(next.caCert).not.toBe(first.caCert);
    expect(cert(next.serverCert).verify(cert(next.caCert).publicKey)).toBe(true);
  });

  describe("a server certificate of the user's (spec.tls.serverSecretName)", () => {
    const theirs = tlsMaterial("theirs", {}, NAMES, NOW);
    const userSecret = (data: Record<string, string>): KubeObject => ({
      apiVersion: "v1",
      kind: "Secret",
      data: Object.fromEntries(
        Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
      ),
    });
    const complete = userSecret({
      "tls.crt": theirs.serverCert,
      "tls.key": theirs.serverKey,
      "ca.crt": theirs.caCert,
    });

    it("is served, and clients verify it with its ca.crt; client certificates stay ours", () => {
      const next = tlsMaterial(
        "orders",
        { ...stored(first), user: { name: "mine", secret: complete } },
        NAMES,
        later(1),
      );
      expect(next.serverCert).toBe(theirs.serverCert);
      expect(next.serverKey).toBe(theirs.serverKey);
      expect(next.serverCa).toBe(theirs.caCert);
      expect(next.caCert).toBe(first.caCert);
      expect(next.replicationCert).toBe(first.replicationCert);
    });

    it.each<[string, KubeObject | undefined, string]>([
      ["missing", undefined, "Secret mine (spec.tls.serverSecretName): does not exist"],
      [
        "without ca.crt",
        userSecret({ "tls.crt": theirs.serverCert, "tls.key": theirs.serverKey }),
        "has no ca.crt",
      ],
      [
        "with another certificate's key",
        userSecret({
          "tls.crt": theirs.serverCert,
          "tls.key": first.serverKey,
          "ca.crt": theirs.caCert,
        }),
        "its key does not match it",
      ],
      [
        "not naming every Service",
        userSecret({
          "tls.crt": theirs.replicationCert,
          "tls.key": theirs.replicationKey,
          "ca.crt": theirs.caCert,
        }),
        "it does not name orders-rw",
      ],
    ])("is refused when %s, saying why", (_, secret, message) => {
      const attempt = () =>
        tlsMaterial(
          "orders",
          { user: { name: "mine", ...(secret ? { secret } : {}) } },
          NAMES,
          NOW,
        );
      expect(attempt).toThrow(ReconcileError);
      expect(attempt).toThrow(message);
    });

    it("is refused once expired", () => {
      const attempt = () =>
        tlsMaterial("orders", { user: { name: "mine", secret: complete } }, NAMES, later(400));
      expect(attempt).toThrow(/it ends/);
    });
  });
});
