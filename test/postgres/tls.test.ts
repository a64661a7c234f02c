/**
 * TLS and least-privilege logins against a real PostgreSQL (issue 15, ADR 0017), with the
 * operator's own material (pki/database-tls.ts), pg_hba.conf (specs/postgresql-conf.ts), the
 * roles' SQL (specs/roles.ts) and SQL edge (instance/instance-sql.ts, instance/probe-sessions.ts):
 * - the operator connects over TLS, verifying the server's name, with its certificate and the
 *   superuser's password; the password alone, or no TLS, is refused;
 * - a standby clones and streams as streaming_replica by certificate, verifying the primary;
 * - a renewed server certificate is served after the reload the probe asks for, no restart;
 * - the operator's everyday work runs as pgkeeper_monitor by certificate, which can do that and
 *   nothing a superuser alone may (ADR 0019), and a cluster from before the role is reached as
 *   the superuser until the operator has set it up.
 */
import { spawnSync } from "node:child_process";
import { connect as tcpConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import path from "node:path";
import { existsSync, rmSync, utimesSync } from "node:fs";
import {
  InstanceSqlError,
  applyParameters,
  checkpoint,
  ensureRoles,
  probeInstance,
  promote,
  reloadConfiguration,
  requestRepair,
} from "../../capabilities/database/instance/instance-sql";
import { ProbeSessions } from "../../capabilities/database/instance/probe-sessions";
import type { InstanceProbe, InstanceTarget } from "../../capabilities/database/instance/types";
import { tlsMaterial } from "../../capabilities/database/pki/database-tls";
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
let standby: PgServer;
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
  write("monitor.crt", material.monitorCert);
  write("monitor.key", material.monitorKey);
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
  tls = tlsMaterial("orders", {}, DNS_NAMES, NOW).tls;
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

/** The operator's everyday identity at `server`: pgkeeper_monitor by certificate, no fallback. */
const monitor = (server = primary, over: Partial<InstanceTarget> = {}): InstanceTarget => ({
  host: "127.0.0.1",
  port: server.port,
  user: "pgkeeper_monitor",
  password: "",
  database: "postgres",
  tls: { ca: tls.serverCa, cert: tls.monitorCert, key: tls.monitorKey, servername: POD_NAME },
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
      for (let i = 0; i < 3; i++) await sessions.probeInstance(monitor(), 5000);
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

  it("with plaintext allowed, let applications in without TLS, but not the superuser's password (issue 28)", async () => {
    primary.sql("CREATE ROLE plain_app LOGIN PASSWORD 'app-password'");
    const plain = (user: string, password: string) =>
      `host=localhost port=${primary.port} user=${user} password=${password} dbname=postgres sslmode=disable`;
    writeHba({ allowPlaintext: true });
    await reloadConfiguration(operator());
    try {
      expect(psql(plain("plain_app", "app-password"), "SELECT 1").stdout.trim()).toBe("1");
      const superuser = psql(plain("postgres", primary.password), "SELECT 1");
      expect(superuser.status).not.toBe(0);
      expect(superuser.stderr).toContain("rejects connection");
      writeHba({ allowPlaintext: true, enableSuperuserAccess: true });
      await reloadConfiguration(operator());
      expect(psql(plain("postgres", primary.password), "SELECT 1").stdout.trim()).toBe("1");
    } finally {
      writeHba();
      await reloadConfiguration(operator());
      primary.sql("DROP ROLE plain_app");
    }
  });
});

describe("replication by certificate", () => {
  beforeAll(() => ensureRoles(operator()));

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
    standby = await cluster.unstarted("standby");
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
    const leaf = tlsMaterial("orders", { ca: caSecret }, [...DNS_NAMES, "orders-ro"], NOW).tls;
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

describe("the operator's everyday role, pgkeeper_monitor (ADR 0019)", () => {
  const monitorDsn = (server: PgServer, over = "") =>
    `host=localhost port=${server.port} dbname=postgres user=pgkeeper_monitor sslmode=verify-full sslrootcert=${files.serverCa} sslcert=${tlsDir}/monitor.crt sslkey=${tlsDir}/monitor.key ${over}`;
  /** Who the operator's probe session logged in as, and whether over TLS. */
  const probeSession = () =>
    primary.sql(
      "SELECT usename || ' ' || ssl FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE application_name = 'pgkeeper-probe'",
    );
  /** What a probe reports, without what moves on its own (positions, replication progress). */
  const settled = ({ lsn: _, replayLsn: __, standbys, ...rest }: InstanceProbe) => ({
    ...rest,
    standbys: standbys.map(({ flushLsn, replayLsn, ...s }) => ({
      ...s,
      positions: Boolean(flushLsn && replayLsn),
    })),
  });

  it("keeps its probe session across targets rebuilt by every pass", async () => {
    // A fallback session is given up after monitorRetryMs (0 here); the monitor's own never is.
    const sessions = new ProbeSessions({ acceptCheckMs: 60_000, monitorRetryMs: 0 });
    const probePid = () =>
      primary.sql("SELECT pid FROM pg_stat_activity WHERE application_name = 'pgkeeper-probe'");
    try {
      await sessions.probeInstance(monitor(primary, { fallback: operator() }), 5000);
      const first = probePid();
      await sessions.probeInstance(monitor(primary, { fallback: operator() }), 5000);
      expect(probePid()).toBe(first);
    } finally {
      sessions.closeAll();
    }
  });

  it("logs in by its certificate only, over TLS", () => {
    expect(psql(monitorDsn(primary), "SELECT current_user").stdout.trim()).toBe("pgkeeper_monitor");
    const withoutCert = monitorDsn(primary).replace(/ sslcert=\S+ sslkey=\S+/, "");
    expect(psql(withoutCert, "SELECT 1").status).not.toBe(0);
    expect(psql(monitorDsn(primary, "sslmode=disable"), "SELECT 1").status).not.toBe(0);
  });

  it("probes the primary and a standby seeing all the superuser sees", async () => {
    for (const server of [primary, standby]) {
      const asMonitor = await probeInstance(monitor(server), 5000);
      const asSuperuser = await probeInstance(operator({ port: server.port }), 5000);
      // The same view, and the monitor's says who took it (ha-step.ts then drops the fallback).
      expect(settled(asMonitor)).toEqual({ ...settled(asSuperuser), byMonitor: true });
      expect(asSuperuser.byMonitor).toBeUndefined();
    }
    const onPrimary = await probeInstance(monitor(), 5000);
    expect(onPrimary.rolesOutdated).toBeUndefined();
    expect(onPrimary.standbys).toEqual([
      expect.objectContaining({ name: "standby", state: "streaming" }),
    ]);
    expect(onPrimary.standbys[0].flushLsn).toBeDefined(); // pg_stat_replication hides it from the unprivileged
    expect((await probeInstance(monitor(standby), 5000)).walReceiverStatus).toBe("streaming");
  });

  it("sees a changed certificate file through pgkeeper.config_files_changed(), and reloads", async () => {
    writeMaterial(tls); // the kubelet rewrote the mounted Secret
    writeHba(); // and the ConfigMap
    expect((await probeInstance(monitor(), 5000)).configFilesChanged).toBe(true);
    await reloadConfiguration(monitor());
    // Whole seconds: a file written in the second of the reload still counts as changed, so
    // every file the function reads is dated before it, as it is once the kubelet's write is a
    // second old. (Run 25 failed here: pg_hba.conf, written by an earlier test in the second of
    // this reload, was left as it was.)
    const loaded = Number(primary.sql("SELECT extract(epoch FROM pg_conf_load_time())"));
    for (const file of [
      hbaFile(),
      ...["tls.crt", "tls.key", "ca.crt"].map(f => path.join(tlsDir, f)),
    ])
      utimesSync(file, loaded - 2, loaded - 2);
    expect((await probeInstance(monitor(), 5000)).configFilesChanged).toBeUndefined();
  });

  it("checkpoints, and asks a replica (never a primary) for a repair", async () => {
    await checkpoint(monitor());
    await expect(requestRepair(monitor())).rejects.toThrow(/not in recovery/);
    const marker = path.join(standby.dataDir, "pgkeeper.repair");
    await requestRepair(monitor(standby));
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });

  it.each<[string, string, RegExp]>([
    ["ALTER SYSTEM", "ALTER SYSTEM SET work_mem = '8MB'", /permission denied/],
    [
      "create a role",
      "CREATE ROLE intruder LOGIN SUPERUSER",
      /permission denied|must be superuser/,
    ],
    [
      "change a password",
      "ALTER ROLE postgres PASSWORD 'x'",
      /permission denied|must be superuser/,
    ],
    ["become the superuser", "SET ROLE postgres", /permission denied/],
    [
      "read the server's key",
      "SELECT pg_read_file(current_setting('ssl_key_file'))",
      /permission denied/,
    ],
    ["stat any file", "SELECT pg_stat_file('/etc/passwd')", /permission denied/],
    ["write a file", "COPY (SELECT 1) TO '/tmp/pgkeeper-intruder'", /permission denied|superuser/],
    [
      "stop a backend",
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'postgres'",
      /permission denied|must be a/,
    ],
  ])("cannot %s", (_, query, refusal) => {
    const r = psql(monitorDsn(primary), query);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(refusal);
  });

  it("cannot apply parameters: that stays the superuser's", async () => {
    await expect(applyParameters(monitor(), { work_mem: "8MB" })).rejects.toThrow(
      /permission denied/,
    );
  });

  describe("on a cluster from before the role", () => {
    beforeAll(() => {
      primary.sql("DROP OWNED BY pgkeeper_monitor; DROP ROLE pgkeeper_monitor");
      primary.sql("COMMENT ON SCHEMA pgkeeper IS NULL");
    });
    afterAll(() => ensureRoles(operator()));
    const withFallback = () => monitor(primary, { fallback: operator() });

    it("is refused, so its target falls back to the superuser, and the probe asks for the roles", async () => {
      await expect(probeInstance(monitor(), 5000)).rejects.toMatchObject({ code: "28000" });
      const sessions = new ProbeSessions({ acceptCheckMs: 60_000, monitorRetryMs: 0 });
      try {
        expect((await sessions.probeInstance(withFallback(), 5000)).rolesOutdated).toBe(true);
        expect(probeSession()).toBe("postgres true");
        await checkpoint(withFallback());
        await ensureRoles(operator());
        // The fallback session is given up for the monitor at the next probe (monitorRetryMs 0).
        expect((await sessions.probeInstance(withFallback(), 5000)).rolesOutdated).toBeUndefined();
        expect(probeSession()).toBe("pgkeeper_monitor true");
      } finally {
        sessions.closeAll();
      }
    });
  });

  it("promotes a standby", async () => {
    await promote(monitor(standby), 30);
    expect(standby.sql("SELECT pg_is_in_recovery()")).toBe("f");
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
