import { X509Certificate } from "node:crypto";
import { KubeObject } from "../cluster/cluster";
import { input } from "../../../test/unit/builder-fixtures";
import { buildBackupTlsSecret } from "../specs/backup-tls";
import {
  RENEW_BEFORE_DAYS,
  TLS_LIFETIME_DAYS,
  backupTlsOf,
  issueBackupTls,
  renewalReason,
} from "./backup-tls";

const NAMES = ["*.orders-hl.shop.svc", "*.orders-hl.shop.svc.cluster.local"];
const NOW = new Date("2026-12-02T12:00:00Z");
const DAY = 24 * 3600 * 1000;
const issued = issueBackupTls("orders", NAMES, NOW);
const later = (days: number) => new Date(NOW.getTime() + days * DAY);

describe("backup TLS material", () => {
  it("issues a CA, a server certificate for the instances and the backup host's client certificate", () => {
    const ca = new X509Certificate(issued.ca);
    const server = new X509Certificate(issued.serverCert);
    const client = new X509Certificate(issued.clientCert);
    expect(ca.ca).toBe(true);
    expect(server.verify(ca.publicKey) && client.verify(ca.publicKey)).toBe(true);
    expect(server.subjectAltName).toBe(NAMES.map(n => `DNS:${n}`).join(", "));
    expect(client.subject).toContain("CN=pgkeeper-backup");
    expect(Date.parse(server.validTo)).toBeGreaterThan(later(TLS_LIFETIME_DAYS - 1).getTime());
  });

  it.each<[string, () => Parameters<typeof renewalReason>, RegExp | undefined]>([
    ["sound", () => [issued, NAMES, NOW], undefined],
    [
      "a month before the end",
      () => [issued, NAMES, later(TLS_LIFETIME_DAYS - RENEW_BEFORE_DAYS + 1)],
      /expires/,
    ],
    ["another Database's names", () => [issued, ["*.other-hl.shop.svc"], NOW], /does not name/],
    [
      "a key of another certificate",
      () => [{ ...issued, serverKey: issued.clientKey }, NAMES, NOW],
      /key does not belong/,
    ],
    [
      "a certificate of another CA",
      () => [{ ...issued, ca: issueBackupTls("x", NAMES, NOW).ca }, NAMES, NOW],
      /not signed by the CA/,
    ],
    ["garbage", () => [{ ...issued, serverCert: "not a certificate" }, NAMES, NOW], /parse/],
  ])("%s", (_title, args, reason) => {
    const got = renewalReason(...args());
    if (reason === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(reason);
  });

  it("reads back what the Secret holds, and nothing from a Secret missing a part", () => {
    const secret = buildBackupTlsSecret(
      input({
        backup: { objectStore: { endpoint: "s", bucket: "pg", credentials: { secretName: "s3" } } },
      }),
      issued,
    ) as KubeObject;
    expect(backupTlsOf(secret)).toEqual(issued);
    const data = { ...(secret.data as Record<string, string>) };
    delete data["client.key"];
    expect(backupTlsOf({ ...secret, data })).toBeUndefined();
    expect(backupTlsOf(undefined)).toBeUndefined();
  });
});
