/**
 * A PostgreSQL server of one of pgkeeper's instance images (hack/images/postgres.sh), for what
 * must be checked against every major the operator ships rather than the host's one: it runs in
 * the image's unpacked file system (hack/images/rootfs.ts) under chroot, as the image's postgres
 * user (999). Its data directory lives inside that file system; the harness reaches it with the
 * host's psql over loopback TCP (trust).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { IMAGE_UID, chrootCommand, imageRootfs } from "../../../hack/images/rootfs";
import { freePort } from "./os";
import { PgServer } from "./server";

/**
 * Reached over TCP on loopback (trust, as initdb --auth=trust sets): a Unix socket path under the
 * unpacked file system, seen from the host, can pass the 107 bytes a socket path may have (it
 * did on a fresh clone at a longer path, and the server was never seen ready).
 */
export class LoopbackServer extends PgServer {
  override get socketDir(): string {
    return "127.0.0.1";
  }
}

/** A running server of the image of `major`; `stop()` stops it and removes its files. */
export class ImageServer {
  readonly server: PgServer;
  private readonly inner: string;

  private constructor(
    readonly major: string,
    private readonly rootfs: string,
    name: string,
    port: number,
  ) {
    this.inner = `/var/tmp/${name}-${randomBytes(4).toString("hex")}`;
    mkdirSync(this.host(this.inner), { mode: 0o700 });
    chownSync(this.host(this.inner), IMAGE_UID, IMAGE_UID);
    this.server = new LoopbackServer(name, this.host(`${this.inner}/data`), port, "", {});
  }

  /** A path of the image's file system (as the server sees it) on the host. */
  host(inner: string): string {
    return path.join(this.rootfs, inner);
  }

  /** This server's own directory, as the server sees it (the host's: host()). */
  get innerDir(): string {
    return this.inner;
  }

  /** `program` (an absolute path in the image) run in the image as its postgres user. */
  imageCommand(program: string, args: string[]): { command: string; args: string[] } {
    const { command, args: chrootArgs } = chrootCommand(this.rootfs, this.major, "postgres", []);
    return { command, args: [...chrootArgs.slice(0, -1), program, ...args] };
  }

  private chrooted(program: string, args: string[]): { command: string; args: string[] } {
    return chrootCommand(this.rootfs, this.major, program, args);
  }

  /**
   * `prepare` runs after initdb, before the server starts, and may return more `-c name=value`
   * settings for it, e.g. a socket directory in innerDir (the default has none).
   */
  static async start(
    major: string,
    name: string,
    prepare?: (s: ImageServer) => Record<string, string>,
  ): Promise<ImageServer> {
    const s = new ImageServer(major, imageRootfs(major), name, await freePort());
    const data = `${s.inner}/data`;
    const initdb = s.chrooted("initdb", [
      ...["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    ]);
    execFileSync(initdb.command, initdb.args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { PATH: "/usr/bin:/bin", LANG: "C" },
    });
    const conf = { unix_socket_directories: "", fsync: "off", ...prepare?.(s) };
    const postgres = s.chrooted("postgres", [
      ...["-D", data, "-p", String(s.server.port), "-c", "listen_addresses=127.0.0.1"],
      ...Object.entries(conf).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
    ]);
    await s.server.start(60_000, { ...postgres, env: {} });
    return s;
  }

  /** SHOW server_version, as the server says it. */
  get version(): string {
    return this.server.sql("SHOW server_version");
  }

  async stop(): Promise<void> {
    await this.server.stop("fast");
    rmSync(this.host(this.inner), { recursive: true, force: true });
  }
}
