/**
 * One CA per Database (ADR 0021) on a real node. A new Database's backup certificates come from
 * its one CA, which `<db>-backup-tls` trusts alone. A Database from before (its backup
 * certificates signed by a CA of their own, put in place here while it is paused) moves to it in
 * three steps, with no PostgreSQL restart and no container restart, while a client that took
 * `ca.crt` from `<db>-app` once keeps connecting with verify-full throughout; a backup then runs
 * between the backup host and the pgBackRest servers on the new certificates.
 */
import { X509Certificate } from "node:crypto";
import { connect as tlsConnect } from "node:tls";
import { database, operatorSuite } from "../integration/harness/fixtures";
import { create, get, mergePatch } from "../integration/harness/kubectl";
import { Operator } from "../integration/harness/operator";
import { waitFor } from "../integration/harness/wait";
import { certificatesIn } from "../../capabilities/database/pki/backup-tls";
import { issueCa, issueLeaf } from "../../capabilities/database/pki/certificates";
import { PGBACKREST_TLS_PORT } from "../../capabilities/database/specs/pgbackrest";
import { backUp } from "./backups";
import { healthy } from "./healthy";
import { createStoreSecrets, localObjectStore } from "./object-store";
import { appCredentials, psql, superuserAt } from "./psql";

/** Past the kubelet's refresh of a mounted Secret: the local node syncs pods every 10 s (kubelet.yaml). */
const OVERLAP_SECONDS = 30;
const operator = new Operator("e2e-one-ca", {
  PGKEEPER_TRUST_OVERLAP_SECONDS: String(OVERLAP_SECONDS),
});
let ns: string;
operatorSuite(operator, "one-ca", created => (ns = created));

const DB = "ledger";
const PODS = [`${DB}-0`, `${DB}-1`];

const decoded = (secret: string, key: string): string =>
  Buffer.from(String(get("secret", ns, secret)?.data?.[key] ?? ""), "base64").toString("utf8");
const backupTls = (key: string) => decoded(`${DB}-backup-tls`, key);
const databaseCa = () => decoded(`${DB}-ca`, "ca.crt");
const signedBy = (cert: string, ca: string) =>
  new X509Certificate(cert).verify(new X509Certificate(ca).publicKey);

const podOf = (name: string) => get("pod", ns, name)!;
const postmasterStart = (name: string): string =>
  psql(superuserAt(ns, DB, podOf(name)), "select pg_postmaster_start_time()");
const restarts = (name: string): Record<string, number> =>
  Object.fromEntries(
    (
      (podOf(name).status as { containerStatuses?: { name: string; restartCount: number }[] })
        .containerStatuses ?? []
    ).map(c => [c.name, c.restartCount]),
  );

/**
 * The certificate the pgBackRest server of `pod` serves, reached as the backup host is (with the
 * client certificate and CA the Secret holds now).
 */
function servedBackupCertificate(pod: string): Promise<string> {
  const ip = String((podOf(pod).status as { podIP?: string }).podIP);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: ip,
      port: PGBACKREST_TLS_PORT,
      servername: `${pod}.${DB}-hl.${ns}.svc`,
      ca: backupTls("ca.crt"),
      cert: backupTls("client.crt"),
      key: backupTls("client.key"),
      rejectUnauthorized: true,
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer")));
    socket.once("secureConnect", () => {
      resolve(socket.getPeerX509Certificate()?.toString() ?? "");
      socket.destroy();
    });
    socket.once("error", reject);
  });
}

/** What pgkeeper before ADR 0021 wrote: a backup CA of its own and two leaves it signed. */
function legacyBackupTls(): Record<string, string> {
  const now = new Date();
  const names = [`*.${DB}-hl.${ns}.svc`, `*.${DB}-hl.${ns}.svc.cluster.local`];
  const ca = issueCa(`${DB} backup`, now);
  const server = issueLeaf(ca, { commonName: names[0], dnsNames: names }, now);
  const client = issueLeaf(ca, { commonName: "pgkeeper-backup" }, now);
  const parts = {
    "ca.crt": ca.cert,
    "server.crt": server.cert,
    "server.key": server.key,
    "client.crt": client.cert,
    "client.key": client.key,
  };
  return Object.fromEntries(
    Object.entries(parts).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
  );
}

describe("one CA per Database", () => {
  beforeAll(async () => {
    createStoreSecrets(ns);
    const backup = { objectStore: localObjectStore() };
    create(database(ns, DB, { instances: 2, backup }));
    await healthy(ns, DB, 2, operator.logFile);
  }, 420_000);

  it("issues a new Database's backup certificates from its one CA, which the backup Secret trusts alone", () => {
    const ca = databaseCa();
    expect(backupTls("ca.crt")).toBe(ca);
    expect(signedBy(backupTls("server.crt"), ca)).toBe(true);
    expect(signedBy(backupTls("client.crt"), ca)).toBe(true);
    expect(backupTls("ca.key")).toBe("");
  });

  it("moves a backup Secret of another CA to the Database's with no restart, clients trusting throughout", async () => {
    const client = appCredentials(ns, DB); // ca.crt taken once, as an application would
    await waitFor("SQL over verify-full", () => psql(client, "select 1") === "1", {
      timeoutMs: 60_000,
    });
    const startedAt = Object.fromEntries(PODS.map(p => [p, postmasterStart(p)]));
    const restartCounts = Object.fromEntries(PODS.map(p => [p, restarts(p)]));

    // The Database as an earlier pgkeeper left it: paused while the Secret is put back that way.
    mergePatch("database", ns, DB, { spec: { paused: true } });
    await waitFor("paused", () => get("database", ns, DB)?.status?.phase === "Paused", {
      timeoutMs: 60_000,
    });
    const legacy = legacyBackupTls();
    mergePatch("secret", ns, `${DB}-backup-tls`, { data: legacy });
    const legacyCa = Buffer.from(legacy["ca.crt"], "base64").toString();
    await waitFor(
      "every pgBackRest server serving the old CA's certificate",
      async () => {
        const served = await Promise.all(PODS.map(p => servedBackupCertificate(p).catch(() => "")));
        return served.every(cert => cert !== "" && signedBy(cert, legacyCa));
      },
      { timeoutMs: 240_000, intervalMs: 5000 },
    );

    mergePatch("database", ns, DB, { spec: { paused: false } });
    const ca = databaseCa();
    const failures: string[] = [];
    const seen = new Set<string>();
    await waitFor(
      "the backup Secret on the Database's CA alone, every server serving its certificate",
      async () => {
        try {
          psql(client, "select 1");
        } catch (err) {
          failures.push((err as Error).message);
        }
        const bundle = certificatesIn(backupTls("ca.crt"));
        seen.add(
          `${bundle.length} CA(s), leaves of ${signedBy(backupTls("server.crt"), ca) ? "the Database's CA" : "the old CA"}`,
        );
        if (bundle.length !== 1 || bundle[0] !== ca) return false;
        const served = await Promise.all(PODS.map(p => servedBackupCertificate(p).catch(() => "")));
        return served.every(cert => cert !== "" && signedBy(cert, ca));
      },
      { timeoutMs: (4 * OVERLAP_SECONDS + 240) * 1000, intervalMs: 3000 },
    );
    // The three steps, in order (each lasts an overlap, so every poll sees each): trust both,
    // then the new CA's certificates, then the new CA alone.
    expect([...seen].filter(step => step !== "1 CA(s), leaves of the old CA")).toEqual([
      "2 CA(s), leaves of the old CA",
      "2 CA(s), leaves of the Database's CA",
      "1 CA(s), leaves of the Database's CA",
    ]);
    expect(failures).toEqual([]);
    expect(get("secret", ns, `${DB}-backup-tls`)?.metadata?.annotations ?? {}).not.toHaveProperty(
      "pgkeeper.dev/trust-changed-at",
    );
    for (const pod of PODS) {
      expect(postmasterStart(pod)).toBe(startedAt[pod]);
      expect(restarts(pod)).toEqual(restartCounts[pod]);
    }
    // Right after the last step, while the sidecars may still be reloading: a restart there
    // would end the backup's connections (TLS error [5:0]). The message shows in a failure's diff.
    const backup = await backUp(ns, DB, "after-the-move");
    expect(backup).toMatchObject({ phase: "Completed", message: backup.message });
  }, 1_200_000);
});
