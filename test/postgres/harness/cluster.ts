/**
 * Builds what the operator manages, on loopback: a primary (initdb with data checksums, scram for
 * TCP) and streaming standbys cloned with pg_basebackup. Everything lives in one temporary
 * directory per Cluster; `destroy()` stops every server and removes it.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { tlsMaterial } from "../../../capabilities/database/pki/database-tls";
import { CREATE_ROLES } from "../../../capabilities/database/specs/roles";
import { DatabaseTls, TLS_SECRET_KEYS, tlsFilesIn } from "../../../capabilities/database/specs/tls";
import { bin, freePort, RunAs, serverAccount } from "./os";
import { PgServer } from "./server";

/**
 * What an instance pod has of TLS (ADR 0017), for servers the instance scripts connect to: a
 * certificate for `localhost` (how they reach a primary here), streaming_replica and
 * pgkeeper_monitor by certificate in pg_hba.conf, before initdb's password rules, which the
 * harness itself logs in by.
 */
const HBA_TLS_LINES = [
  "hostssl replication streaming_replica all cert",
  "hostssl postgres streaming_replica all cert",
  "hostssl postgres pgkeeper_monitor all cert",
  "",
].join("\n");

/** Settings every test server gets; tests change others through the code under test. */
export const BASE_CONF: Record<string, string> = {
  listen_addresses: "127.0.0.1",
  wal_level: "replica",
  hot_standby: "on",
  wal_log_hints: "on",
  max_wal_senders: "10",
  wal_keep_size: "256MB", // a standby frozen by a test can still catch up without slots
  fsync: "off", // throwaway servers on a shared machine
  log_line_prefix: "%m [%p] %a ",
};

export const confLines = (conf: Record<string, string>): string =>
  Object.entries(conf)
    .map(([k, v]) => `${k} = '${v.replace(/'/g, "''")}'\n`)
    .join("");

export class Cluster {
  readonly root: string;
  readonly password = randomBytes(12).toString("hex");
  readonly account: RunAs = serverAccount();
  private readonly servers: PgServer[] = [];
  /** The instance scripts' TLS directory (PGKEEPER_TLS_DIR): `<db>-tls`'s files. */
  readonly tlsDir: string;
  readonly tls: DatabaseTls;

  constructor() {
    this.root = mkdtempSync(path.join(tmpdir(), "pgk-"));
    if (this.account.uid !== undefined) chownSync(this.root, this.account.uid, this.account.gid!);
    this.tls = tlsMaterial("harness", {}, ["localhost"], new Date()).tls;
    this.tlsDir = this.ownedDir("tls");
    for (const [part, key] of Object.entries(TLS_SECRET_KEYS))
      this.writeOwned(path.join(this.tlsDir, key), this.tls[part as keyof DatabaseTls]);
  }

  private run(command: string, args: string[], env: Record<string, string> = {}): void {
    execFileSync(bin(command), args, {
      ...this.account,
      cwd: this.root,
      stdio: ["ignore", "ignore", "pipe"],
      env: { PATH: process.env.PATH, LANG: "C", ...env },
    });
  }

  /** A directory in the cluster's root that the servers' account owns. */
  ownedDir(name: string): string {
    const dir = path.join(this.root, name);
    mkdirSync(dir, { mode: 0o700 });
    if (this.account.uid !== undefined) chownSync(dir, this.account.uid, this.account.gid!);
    return dir;
  }

  writeOwned(file: string, text: string, mode = 0o600): void {
    writeFileSync(file, text, { mode });
    if (this.account.uid !== undefined) chownSync(file, this.account.uid, this.account.gid!);
  }

  /** initdb + start. `conf` adds settings to postgresql.conf (not postgresql.auto.conf). */
  async primary(name = "primary", conf: Record<string, string> = {}): Promise<PgServer> {
    const dataDir = path.join(this.root, name);
    const pwfile = path.join(this.root, "pwfile");
    this.writeOwned(pwfile, `${this.password}\n`);
    this.run(
      "initdb",
      [
        ["-D", dataDir, "-U", "postgres", `--pwfile=${pwfile}`],
        ["--auth-local=trust", "--auth-host=scram-sha-256", "--data-checksums"],
        ["-E", "UTF8", "--locale=C", "--no-sync"],
      ].flat(),
    );
    const port = await freePort();
    const files = tlsFilesIn(this.tlsDir);
    appendFileSync(
      path.join(dataDir, "postgresql.conf"),
      confLines({
        ...BASE_CONF,
        port: String(port),
        unix_socket_directories: this.ownedDir(`${name}.sock`),
        ssl: "on",
        ssl_cert_file: files.serverCert,
        ssl_key_file: files.serverKey,
        ssl_ca_file: files.clientCa,
        ...conf,
      }),
    );
    const hba = path.join(dataDir, "pg_hba.conf");
    writeFileSync(hba, HBA_TLS_LINES + readFileSync(hba, "utf8"));
    const server = await this.started(
      new PgServer(name, dataDir, port, this.password, this.account),
    );
    // Local commit: a test's synchronous_standby_names must not wait for standbys not there yet.
    server.sql(["SET synchronous_commit = local;", ...CREATE_ROLES].join(" "));
    return server;
  }

  /**
   * pg_basebackup from `source`, then a streaming standby named `name` (application_name).
   * primary_conninfo goes into postgresql.conf rather than postgresql.auto.conf (where -R would
   * put it): the operator owns postgresql.auto.conf through ALTER SYSTEM and rewrites it whole.
   */
  async standby(source: PgServer, name: string): Promise<PgServer> {
    const dataDir = path.join(this.root, name);
    this.run(
      "pg_basebackup",
      ["-h", "127.0.0.1", "-p", String(source.port), "-U", "postgres", "-D", dataDir].concat([
        "-X",
        "stream",
        "-c",
        "fast",
        "--no-sync",
      ]),
      { PGPASSWORD: this.password },
    );
    const port = await freePort();
    const conninfo =
      `host=127.0.0.1 port=${source.port} user=postgres password=${this.password} ` +
      `application_name=${name}`;
    appendFileSync(
      path.join(dataDir, "postgresql.conf"),
      confLines({
        port: String(port),
        unix_socket_directories: this.ownedDir(`${name}.sock`),
        primary_conninfo: conninfo,
      }),
    );
    this.writeOwned(path.join(dataDir, "standby.signal"), "");
    const standby = await this.started(
      new PgServer(name, dataDir, port, this.password, this.account),
    );
    await source.waitFor(
      `SELECT state FROM pg_stat_replication WHERE application_name = '${name}'`,
      "streaming",
    );
    return standby;
  }

  /** A server with no data directory yet (an instance's entrypoint makes it), stopped at destroy. */
  async unstarted(name: string): Promise<PgServer> {
    this.ownedDir(`${name}.sock`);
    const server = new PgServer(
      name,
      path.join(this.root, name),
      await freePort(),
      this.password,
      this.account,
    );
    this.servers.push(server);
    return server;
  }

  private async started(server: PgServer): Promise<PgServer> {
    this.servers.push(server);
    await server.start();
    return server;
  }

  /** Stops every server (immediate: nothing left to protect) and removes the directory. */
  async destroy(): Promise<void> {
    const stops = await Promise.allSettled(this.servers.map(s => s.stop("immediate")));
    rmSync(this.root, { recursive: true, force: true });
    const failed = stops.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
  }
}
