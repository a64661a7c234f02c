/**
 * TLS and least-privilege logins against a real PostgreSQL (issue 15, ADR 0017), with the
 * operator's own material (reconcile/tls.ts), pg_hba.conf (specs/postgresql-conf.ts), the
 * replication role's SQL (specs/replication-role.ts) and SQL edge (ha/instance-sql.ts,
 * ha/probe-sessions.ts):
 * - the operator connects over TLS, verifying the server's name, with its certificate and the
 *   superuser's password; the password alone, or no TLS, is refused;
 * - a standby clones and streams as streaming_replica by certificate, verifying the primary;
 * - a renewed server certificate is served after the reload the probe asks for, no restart.
 */
import { spawnSync } from "node:child_process";
import { connect as tcpConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import path from "node:path";
import {
  InstanceSqlError,
  ensureReplicationRole,
  probeInstance,
  reloadConfiguration,
} from "../../capabilities/database/ha/instance-sql";
import { ProbeSessions } from "../../capabilities/database/ha/probe-sessions";
import type { InstanceTarget } from "../../capabilities/database/ha/probe-types";
import { tlsMaterial } from "../../capabilities/database/reconcile/tls";
import {
  renderPgHba,
  replicationConninfo,
} from "../../capabilities/database/specs/postgresql-conf";
import { DatabaseTls, TlsFiles } from "../../capabilities/database/specs/tls";
import { Cluster, confLines } from "./harness/cluster";
import { bin } from "./harness/os";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

const POD_NAME = "orders-0.orders-hl.shop.svc";
/** libpq dials by name (verify-full checks it); the operator dials the IP with a server name. */
const DNS_NAMES = ["localhost", "orders-rw", "*.orders-hl.shop.svc"];
const NOW = new Date();

const cluster = new Cluster();
let tls: DatabaseTls;
let files: TlsFiles;
let primary: PgServer;
let tlsDir: string;

function writeMaterial(material: DatabaseTls): void {
  const write = (file: string, text: string) => cluster.writeOwned(path.join(tlsDir, file), text);
  write("ca.crt", material.caCert);
  write("server-ca.crt", material.serverCa);
  write("tls.crt", material.serverCert);
  write("tls.key", material.serverKey);
  write("replication.crt", material.replicationCert);
  write("replication.key", material.replicationKey);
  write("operator.crt", material.operatorCert);
  write("operator.key", material.operatorKey);
}

const hbaFile = () => path.join(cluster.root, "pg_hba.conf");

function writeHba(options: Partial<Parameters<typeof renderPgHba>[0]> = {}): void {
  cluster.writeOwned(
    hbaFile(),
    renderPgHba({
      allowPlaintext: false,
      enableSuperuserAccess: false,
      transition: false,
      ...options,
    }),
  );
}

beforeAll(async () => {
  tls = tlsMaterial("orders", {}, DNS_NAMES, NOW);
  tlsDir = cluster.ownedDir("orders-tls");
  writeMaterial(tls);
  const f = (name: string) => path.join(tlsDir, name);
  files = {
    serverCert: f("tls.crt"),
    serverKey: f("tls.key"),
    serverCa: f("server-ca.crt"),
    clientCa: f("ca.crt"),
    replicationCert: f("replication.crt"),
    replicationKey: f("replication.key"),
  };
  writeHba();
  primary = await cluster.primary("primary", {
    listen_addresses: "127.0.0.1",
    hba_file: hbaFile(),
    ssl: "on",
    ssl_cert_file: files.serverCert,
    ssl_key_file: files.serverKey,
    ssl_ca_file: files.clientCa,
    ssl_min_protocol_version: "TLSv1.2",
  });
});
afterAll(() => cluster.destroy());

/** The operator's target: the IP, verified against the pod's DNS name, with its certificate. */
const operator = (over: Partial<InstanceTarget> = {}): InstanceTarget => ({
  ...primary.target,
  tls: { ca: tls.serverCa, cert: tls.operatorCert, key: tls.operatorKey, servername: POD_NAME },
  ...over,
});

/** The certificate the server hands a new TLS connection: SSLRequest, then a handshake. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: "127.0.0.1", port });
    socket.once("error", reject);
    socket.once("connect", () => socket.write(Buffer.from([0, 0, 0, 8, 4, 210, 22, 47])));
    socket.once("data", answer => {
      if (answer.toString() !== "S") return reject(new Error("no TLS offered"));
      const secure = tlsConnect({ socket, rejectUnauthorized: false }, () => {
        resolve(secure.getPeerCertificate().fingerprint256);
        secure.destroy();
      });
      secure.once("error", reject);
    });
  });
}

/** psql with a libpq connection string, as a standby's tools connect. */
function psql(conninfo: string, query: string) {
  return spawnSync(bin("psql"), ["-d", conninfo, "-XAtq", "-c", query], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, PGCONNECT_TIMEOUT: "5" },
    timeout: 30_000,
  });
}

describe("the operator's connections", () => {
  it("connect over TLS with its certificate and the password, the server's name verified", async () => {
    const probe = await probeInstance(operator(), 5000);
    expect(probe.inRecovery).toBe(false);
    const ssl = primary.sql(
      "SELECT bool_and(ssl) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE usename = 'postgres' AND client_addr IS NOT NULL",
    );
    expect(ssl).not.toBe("f");
  });

  it("keep one TLS session per instance for the probes", async () => {
    const sessions = new ProbeSessions({ acceptCheckMs: 60_000 });
    try {
      for (let i = 0; i < 3; i++) await sessions.probeInstance(operator(), 5000);
      expect(
        primary.sql(
          "SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE application_name = 'pgkeeper-probe' AND ssl",
        ),
      ).toBe("1");
    } finally {
      sessions.closeAll();
    }
  });

  it.each<[string, () => InstanceTarget, RegExp]>([
    ["without TLS", () => operator({ tls: undefined }), /no pg_hba.conf entry|rejects connection/],
    [
      "with the password but no certificate",
      () => operator({ tls: { ...operator().tls!, cert: "", key: "" } }),
      /certificate|authentication/i,
    ],
    [
      "to a server whose certificate does not carry the name",
      () => operator({ tls: { ...operator().tls!, servername: "orders-0.other-hl.shop.svc" } }),
      /does not match certificate's altnames|Hostname\/IP does not match/,
    ],
    [
      "with a wrong password",
      () => operator({ password: "wrong" }),
      /password authentication failed/,
    ],
  ])("are refused %s", async (_, target, message) => {
    await expect(probeInstance(target(), 5000)).rejects.toThrow(InstanceSqlError);
    await expect(probeInstance(target(), 5000)).rejects.toThrow(message);
  });

  it("let a superuser with its password alone in once superuser access is enabled, and not before", async () => {
    const passwordOnly = `host=localhost port=${primary.port} user=postgres password=${primary.password} dbname=postgres sslmode=verify-full sslrootcert=${files.serverCa}`;
    expect(psql(passwordOnly, "SELECT 1").status).not.toBe(0);
    writeHba({ enableSuperuserAccess: true });
    await reloadConfiguration(operator());
    try {
      expect(psql(passwordOnly, "SELECT 1").stdout.trim()).toBe("1");
      expect(
        psql(passwordOnly.replace("sslmode=verify-full", "sslmode=disable"), "SELECT 1").status,
      ).not.toBe(0);
    } finally {
      writeHba();
      await reloadConfiguration(operator());
    }
  });
});

describe("replication by certificate", () => {
  beforeAll(() => ensureReplicationRole(operator()));

  const replicaDsn = (dbname: string) =>
    `host=localhost port=${primary.port} dbname=${dbname} user=streaming_replica sslmode=verify-full sslrootcert=${files.serverCa} sslcert=${files.replicationCert} sslkey=${files.replicationKey}`;

  it("lets streaming_replica in by certificate only, and run the checkpoint pg_rewind needs", () => {
    expect(psql(replicaDsn("postgres"), "SELECT pgkeeper.checkpoint()").status).toBe(0);
    expect(psql(replicaDsn("postgres"), "CHECKPOINT").stderr).toMatch(
      /must be superuser|pg_checkpoint/,
    );
    const withoutCert = `host=localhost port=${primary.port} dbname=postgres user=streaming_replica sslmode=verify-full sslrootcert=${files.serverCa}`;
    expect(psql(withoutCert, "SELECT 1").status).not.toBe(0);
  });

  it("clones and streams: pg_basebackup and a WAL receiver over TLS, verifying the primary", async () => {
    const standby = await cluster.unstarted("standby");
    const clone = spawnSync(
      bin("pg_basebackup"),
      [
        "-D",
        standby.dataDir,
        "-d",
        replicaDsn("replication"),
        "-w",
        "-X",
        "stream",
        "-c",
        "fast",
        "--no-sync",
      ],
      { encoding: "utf8", uid: cluster.account.uid, gid: cluster.account.gid, timeout: 60_000 },
    );
    expect(clone.stderr).toBe("");
    expect(clone.status).toBe(0);
    const conninfo = replicationConninfo({
      host: "localhost",
      port: String(primary.port),
      applicationName: "standby",
      tls: files,
    });
    cluster.writeOwned(
      path.join(standby.dataDir, "postgresql.auto.conf"),
      confLines({
        port: String(standby.port),
        unix_socket_directories: standby.socketDir,
        primary_conninfo: conninfo,
      }),
    );
    cluster.writeOwned(path.join(standby.dataDir, "standby.signal"), "");
    await standby.start();
    await primary.waitFor(
      "SELECT r.state || ' ' || s.ssl FROM pg_stat_replication r JOIN pg_stat_ssl s USING (pid) WHERE application_name = 'standby' AND usename = 'streaming_replica'",
      "streaming true",
    );
  });
});

describe("a renewed server certificate", () => {
  it("is served after the reload the probe asks for, with no restart", async () => {
    const before = await probeInstance(operator(), 5000);
    const servedBefore = await servedFingerprint(primary.port);
    // Renewed as reconcile renews it: the same CA signs a new leaf (here for a name the old
    // one lacks); the files change under the running server, as the kubelet changes them.
    const caSecret = secretOf({
      "ca.crt": tls.caCert,
      "ca.key": tls.caKey,
      "operator.crt": tls.operatorCert,
      "operator.key": tls.operatorKey,
    });
    const leaf = tlsMaterial("orders", { ca: caSecret }, [...DNS_NAMES, "orders-ro"], NOW);
    expect(leaf.caCert).toBe(tls.caCert);
    writeMaterial({ ...tls, serverCert: leaf.serverCert, serverKey: leaf.serverKey });

    expect((await probeInstance(operator(), 5000)).configFilesChanged).toBe(true);
    expect(await servedFingerprint(primary.port)).toBe(servedBefore); // not without a reload
    await reloadConfiguration(operator());
    expect(await servedFingerprint(primary.port)).not.toBe(servedBefore);
    // The operator, verifying against the same CA, connects to the new certificate.
    const reloaded = await probeInstance(operator(), 5000);
    expect(reloaded.postmasterStartTime).toBe(before.postmasterStartTime);
  });
});

function secretOf(data: Record<string, string>) {
  return {
    apiVersion: "v1",
    kind: "Secret",
    data: Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
    ),
  };
}
