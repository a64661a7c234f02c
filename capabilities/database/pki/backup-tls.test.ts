import { X509Certificate } from "node:crypto";
import { KubeObject } from "../cluster/cluster";
import { input } from "../../../test/unit/builder-fixtures";
import { certificate, newKeyPair } from "../lib/x509";
import { BackupTls, buildBackupTlsSecret } from "../specs/backup-tls";
import { backupTlsMaterial, backupTlsOf, certificatesIn } from "./backup-tls";
import { Ca, issueCa, issueLeaf } from "./certificates";
import { DAY_MS, LEAF_LIFETIME_DAYS, RENEW_BEFORE_DAYS } from "./policy";

const NAMES = ["*.orders-hl.shop.svc", "*.orders-hl.shop.svc.cluster.local"];
const NOW = new Date("2026-12-02T12:00:00Z");
const OVERLAP = 10 * 60 * 1000;
const at = (ms: number) => new Date(NOW.getTime() + ms);
const ca = issueCa("orders", NOW);
const fresh = backupTlsMaterial(undefined, ca, NAMES, NOW).tls;

/** Whether some CA of `bundle` signed `cert` (what pgBackRest's peer checks). */
const trusts = (bundle: string, cert: string): boolean =>
  certificatesIn(bundle).some(c =>
    new X509Certificate(cert).verify(new X509Certificate(c).publicKey),
  );

/** What pgkeeper before one CA per Database wrote: a CA of its own, and leaves it signed. */
function legacy(): { oldCa: Ca; tls: BackupTls } {
  const oldCa = issueCa("orders backup", NOW);
  const server = issueLeaf(oldCa, { commonName: NAMES[0], dnsNames: NAMES }, NOW);
  const client = issueLeaf(oldCa, { commonName: "pgkeeper-backup" }, NOW);
  const tls = {
    ca: oldCa.cert,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
  };
  return { oldCa, tls };
}

describe("backup TLS material from the Database's CA", () => {
  it("issues the pgBackRest server's and the backup host's certificates, trusting the one CA alone", () => {
    expect(fresh.ca).toBe(ca.cert);
    const server = new X509Certificate(fresh.serverCert);
    const client = new X509Certificate(fresh.clientCert);
    expect(server.verify(ca.x509.publicKey) && client.verify(ca.x509.publicKey)).toBe(true);
    expect(server.subjectAltName).toBe(NAMES.map(n => `DNS:${n}`).join(", "));
    expect(client.subject).toContain("CN=pgkeeper-backup");
    expect(fresh.trustChangedAt).toBeUndefined();
  });

  it("keeps sound material as it is, with nothing to come back for", () => {
    expect(backupTlsMaterial(fresh, ca, NAMES, at(200 * DAY_MS))).toEqual({ tls: fresh });
  });

  it.each<[string, () => [BackupTls, string[], Date], "serverCert" | "clientCert" | "both"]>([
    [
      "a month before the end",
      () => [fresh, NAMES, at((LEAF_LIFETIME_DAYS - RENEW_BEFORE_DAYS + 1) * DAY_MS)],
      "both",
    ],
    ["names it does not carry", () => [fresh, ["*.other-hl.shop.svc"], NOW], "serverCert"],
    [
      "a key of another certificate",
      () => [{ ...fresh, clientKey: fresh.serverKey }, NAMES, NOW],
      "clientCert",
    ],
  ])("renews by the same CA, ca.crt unchanged: %s", (_title, args, renewed) => {
    const [stored, names, when] = args();
    const { tls, lookAgainMs } = backupTlsMaterial(stored, ca, names, when);
    expect(tls.ca).toBe(ca.cert);
    expect(lookAgainMs).toBeUndefined();
    for (const part of ["serverCert", "clientCert"] as const) {
      const changed = renewed === "both" || renewed === part;
      expect(tls[part] !== fresh[part]).toBe(changed);
      expect(trusts(ca.cert, tls[part])).toBe(true);
    }
  });

  it("moves a Secret of its own CA to the Database's in three steps, each a full overlap after the last", () => {
    const { oldCa, tls: old } = legacy();
    const states: { tls: BackupTls; lookAgainMs?: number; when: number }[] = [];
    let tls = old;
    for (let t = 0; t <= 3 * OVERLAP; t += OVERLAP / 4) {
      const plan = backupTlsMaterial(tls, ca, NAMES, at(t), OVERLAP);
      if (plan.tls !== tls && JSON.stringify(plan.tls) !== JSON.stringify(tls))
        states.push({ ...plan, when: t });
      tls = plan.tls;
    }
    // 1. trust both, certificates still the old CA's
    expect(states[0]).toMatchObject({ when: 0, lookAgainMs: OVERLAP });
    expect(certificatesIn(states[0].tls.ca)).toEqual([ca.cert, oldCa.cert]);
    expect(states[0].tls.serverCert).toBe(old.serverCert);
    // 2. certificates from the Database's CA, still trusting both
    expect(states[1]).toMatchObject({ when: OVERLAP, lookAgainMs: OVERLAP });
    expect(states[1].tls.ca).toBe(states[0].tls.ca);
    expect(
      trusts(ca.cert, states[1].tls.serverCert) && trusts(ca.cert, states[1].tls.clientCert),
    ).toBe(true);
    // 3. the Database's CA alone; nothing more to do
    expect(states[2]).toMatchObject({ when: 2 * OVERLAP });
    expect(states[2].tls.ca).toBe(ca.cert);
    expect(states[2].tls.trustChangedAt).toBeUndefined();
    expect(states[2].lookAgainMs).toBeUndefined();
    expect(states).toHaveLength(3);
    // The kubelet brings each step to each pod in its own time: any pod holding one step's files
    // and any pod holding the next step's (or the same) trust each other both ways.
    const sequence = [old, ...states.map(s => s.tls)];
    for (let i = 0; i + 1 < sequence.length; i++)
      for (const server of [sequence[i], sequence[i + 1]])
        for (const client of [sequence[i], sequence[i + 1]]) {
          expect(trusts(client.ca, server.serverCert)).toBe(true);
          expect(trusts(server.ca, client.clientCert)).toBe(true);
        }
  });

  it("waits out each step from when it began, as the Secret records it", () => {
    const { tls: old } = legacy();
    const step1 = backupTlsMaterial(old, ca, NAMES, NOW, OVERLAP).tls;
    const halfway = backupTlsMaterial(step1, ca, NAMES, at(OVERLAP / 2), OVERLAP);
    expect(halfway).toEqual({ tls: step1, lookAgainMs: OVERLAP / 2 });
    // A trusting Secret that lost its record starts the wait again rather than rushing on.
    const { trustChangedAt: _dropped, ...unrecorded } = step1;
    expect(backupTlsMaterial(unrecorded, ca, NAMES, at(OVERLAP), OVERLAP)).toEqual({
      tls: { ...unrecorded, trustChangedAt: at(OVERLAP).toISOString() },
      lookAgainMs: OVERLAP,
    });
  });

  it.each<[string, (old: BackupTls) => BackupTls]>([
    ["certificates that expired", old => expired(old)],
    ["a certificate no listed CA signed", old => ({ ...old, ca: issueCa("x", NOW).cert })],
    ["garbage", old => ({ ...old, serverCert: "not a certificate" })],
  ])("replaces at once what there is no trust to keep in: %s", (_title, spoil) => {
    const { tls } = backupTlsMaterial(spoil(legacy().tls), ca, NAMES, at(DAY_MS), OVERLAP);
    expect(tls.ca).toBe(ca.cert);
    expect(trusts(ca.cert, tls.serverCert) && trusts(ca.cert, tls.clientCert)).toBe(true);
    expect(tls.trustChangedAt).toBeUndefined();
  });

  it("reads back what the Secret holds, the step's time included, and nothing from a Secret missing a part", () => {
    const store = { endpoint: "s", bucket: "pg", credentials: { secretName: "s3" } };
    const moving = backupTlsMaterial(legacy().tls, ca, NAMES, NOW).tls;
    const secret = buildBackupTlsSecret(
      input({ backup: { objectStore: store } }),
      moving,
    ) as KubeObject;
    expect(secret.metadata?.annotations).toEqual({
      "pgkeeper.dev/trust-changed-at": NOW.toISOString(),
    });
    expect(backupTlsOf(secret)).toEqual(moving);
    const data = { ...(secret.data as Record<string, string>) };
    delete data["client.key"];
    expect(backupTlsOf({ ...secret, data })).toBeUndefined();
    expect(backupTlsOf(undefined)).toBeUndefined();
  });
});

/** `old` with its certificates re-signed to have ended a day before NOW. */
function expired(old: BackupTls): BackupTls {
  const signer = newKeyPair();
  const end = (commonName: string, names: string[]) => {
    const pair = newKeyPair();
    const cert = certificate({
      commonName,
      dnsNames: names,
      isCA: false,
      notBefore: new Date(NOW.getTime() - 30 * DAY_MS),
      notAfter: new Date(NOW.getTime() - DAY_MS),
      publicKeyDer: pair.publicKeyDer,
      issuer: { commonName: "old", key: signer.key },
    });
    return { cert, key: pair.key };
  };
  const caCert = certificate({
    commonName: "old",
    isCA: true,
    notBefore: new Date(NOW.getTime() - 30 * DAY_MS),
    notAfter: new Date(NOW.getTime() + 300 * DAY_MS),
    publicKeyDer: signer.publicKeyDer,
    selfKey: signer.key,
  });
  const server = end(NAMES[0], NAMES);
  const client = end("pgkeeper-backup", []);
  return {
    ...old,
    ca: caCert,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
  };
}
