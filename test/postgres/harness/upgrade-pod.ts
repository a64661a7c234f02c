/**
 * The volumes of a Database's primary pod across a major upgrade, run with pgkeeper's real
 * instance images (hack/images/rootfs.ts): one host directory holding the data volume (PGDATA is
 * data/pgdata, as in the pod), the upgrade's emptyDir, the ConfigMap and the run directory,
 * bind-mounted at the same path into each image's file system. A container of image `major` is a
 * process under chroot in that image's tree, as its postgres user (999), so the old image exports
 * its programs and the new one runs pg_upgrade on the same files, as pods of two images mounting
 * one volume do. Needs root (chroot, mount).
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { IMAGE_UID, chrootCommand, imageRootfs } from "../../../hack/images/rootfs";
import { UPGRADE_SH } from "../../../capabilities/database/specs/scripts/upgrade";
import { ARCHIVE_SH } from "../../../capabilities/database/specs/scripts/archive";
import { CREDENTIAL_FILES, FILE_ARCHIVE } from "../../../capabilities/database/specs/layout";
import { pgbackrestConf, STANZA } from "../../../capabilities/database/specs/pgbackrest";
import { storeSettings } from "./archiving";
import { ObjectStore } from "./object-store";
import { LoopbackServer } from "./image-server";
import { freePort } from "./os";
import { PgServer } from "./server";

const WORK = process.env.PGKEEPER_WORK ?? path.resolve(__dirname, "..", "..", "..", ".work");

/** A server of the pod, reached over loopback; its log is kept off the data volume, whose entries the tests compare. */
class PodServer extends LoopbackServer {
  constructor(
    name: string,
    dataDir: string,
    port: number,
    private readonly logDir: string,
  ) {
    super(name, dataDir, port, "", {});
  }

  override get logFile(): string {
    return path.join(this.logDir, `${this.name}.log`);
  }
}

export interface ScriptRun {
  status: number | null;
  /** The termination message the script wrote. */
  message: string;
  /** Its stderr (the log). */
  log: string;
}

export class UpgradePod {
  /** The pod's directories, as every image's chroot sees them. */
  readonly inner = `/var/tmp/pgkeeper-upgrade-${randomBytes(4).toString("hex")}`;
  readonly pgdata = `${this.inner}/data/pgdata`;
  private readonly hostDir = path.join(WORK, "upgrade-pods", path.basename(this.inner));
  private readonly mounted = new Map<string, string>();

  constructor() {
    for (const dir of ["data", "upgrade", "config", "run", "scripts"]) {
      mkdirSync(path.join(this.hostDir, dir), { recursive: true, mode: 0o700 });
      chownSync(path.join(this.hostDir, dir), IMAGE_UID, IMAGE_UID);
    }
    chownSync(this.hostDir, IMAGE_UID, IMAGE_UID);
    this.write("config/managed.conf", "# Written by pgkeeper at bootstrap\n");
    // The pod's pg_hba.conf is the ConfigMap's (hba_file), never the data directory's.
    this.write("config/pg_hba.conf", "local all all trust\nhost all all 127.0.0.1/32 trust\n");
    this.write("scripts/upgrade.sh", UPGRADE_SH);
    this.write("termination-log", "");
    writeFileSync(this.host("hosts"), "127.0.0.1\tlocalhost\n", { mode: 0o644 });
  }

  /** A path of the pod's files, seen from the host. */
  host(relative: string): string {
    return path.join(this.hostDir, relative);
  }

  write(relative: string, text: string): void {
    writeFileSync(this.host(relative), text);
    chownSync(this.host(relative), IMAGE_UID, IMAGE_UID);
  }

  /** The data volume's entries: data directories and their siblings. */
  volume(): string[] {
    return readdirSync(this.host("data")).sort();
  }

  /** The image of `major`'s file system, with this pod's files mounted in. */
  private rootfs(major: string): string {
    const known = this.mounted.get(major);
    if (known) return known;
    const rootfs = imageRootfs(major);
    const target = path.join(rootfs, this.inner);
    mkdirSync(target, { recursive: true });
    execFileSync("mount", ["--rbind", this.hostDir, target]);
    // The test's object store listens on 127.0.0.1 as `localhost` (its certificate's name); the
    // image's /etc/hosts also maps localhost to ::1, which pgBackRest would try alone.
    execFileSync("mount", ["--bind", this.host("hosts"), path.join(rootfs, "etc", "hosts")]);
    this.mounted.set(major, rootfs);
    return rootfs;
  }

  /** `program` of image `major`'s PostgreSQL as a command line in its file system. */
  command(major: string, program: string, args: string[]): { command: string; args: string[] } {
    return chrootCommand(this.rootfs(major), major, program, args);
  }

  private scriptCommand(major: string, args: string[]): { command: string; args: string[] } {
    return {
      command: "/usr/sbin/chroot",
      args: [
        `--userspec=${IMAGE_UID}:${IMAGE_UID}`,
        this.rootfs(major),
        "/bin/sh",
        `${this.inner}/scripts/upgrade.sh`,
        ...args,
      ],
    };
  }

  /** The port of the pod's servers, one for every server it runs (pgBackRest's pg1-port). */
  private port?: number;

  /**
   * Archiving into `store`'s `repository` as an instance pod does: pgbackrest.conf as the
   * operator renders it (with the store's CA copied into the pod), the real archive script, and
   * the store's keys as credential files.
   */
  archiveTo(store: ObjectStore, repository: string): void {
    this.write("config/ca.crt", readFileSync(store.caFile, "utf8"));
    const settings = { ...storeSettings(store), caFile: `${this.inner}/config/ca.crt` };
    this.write("config/pgbackrest.conf", pgbackrestConf(settings, repository));
    this.write(`config/${FILE_ARCHIVE}`, ARCHIVE_SH);
    mkdirSync(this.host("credentials"), { mode: 0o700 });
    chownSync(this.host("credentials"), IMAGE_UID, IMAGE_UID);
    this.write(`credentials/${CREDENTIAL_FILES.repo1S3Key}`, store.accessKey);
    this.write(`credentials/${CREDENTIAL_FILES.repo1S3KeySecret}`, store.secretKey);
    this.keys = store.credentialsEnv;
  }

  private keys: Record<string, string> = {};

  /** `pgbackrest args` in image `major`, as the pod's user, with the store's keys. */
  pgbackrest(major: string, ...args: string[]): string {
    return execFileSync(
      "/usr/sbin/chroot",
      [
        ...[`--userspec=${IMAGE_UID}:${IMAGE_UID}`, this.rootfs(major), "/usr/bin/pgbackrest"],
        ...[`--config=${this.inner}/config/pgbackrest.conf`, `--stanza=${STANZA}`, ...args],
      ],
      { env: { ...this.env(major), ...this.keys }, encoding: "utf8", timeout: 300_000 },
    );
  }

  /** The environment of the pod's containers, as the StatefulSet and Job set it. */
  private env(major: string): Record<string, string> {
    return {
      PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
      LANG: "C.UTF-8",
      PGDATA: this.pgdata,
      PG_MAJOR: major,
      PGKEEPER_UPGRADE_DIR: `${this.inner}/upgrade`,
      PGKEEPER_CONFIG_DIR: `${this.inner}/config`,
      PGKEEPER_RUN_DIR: `${this.inner}/run`,
      PGKEEPER_TERMINATION_LOG: `${this.inner}/termination-log`,
      PGKEEPER_CREDENTIALS_DIR: `${this.inner}/credentials`,
      PGHOST: `${this.inner}/run`,
      // pgbackrest.conf names the pod's paths and port; the environment takes precedence.
      PGBACKREST_PG1_PATH: this.pgdata,
      PGBACKREST_PG1_SOCKET_PATH: `${this.inner}/run`,
      ...(this.port ? { PGPORT: String(this.port), PGBACKREST_PG1_PORT: String(this.port) } : {}),
    };
  }

  /** upgrade.sh `args` in image `major`, to its end. */
  script(major: string, ...args: string[]): ScriptRun {
    this.write("termination-log", "");
    const { command, args: argv } = this.scriptCommand(major, args);
    const r = spawnSync(command, argv, {
      env: this.env(major),
      encoding: "utf8",
      timeout: 300_000,
    });
    return {
      status: r.status,
      message: readFileSync(this.host("termination-log"), "utf8"),
      log: r.stderr,
    };
  }

  /** upgrade.sh `args` in image `major`, started in a process group of its own. */
  spawnScript(major: string, ...args: string[]): ChildProcess {
    this.write("termination-log", "");
    const { command, args: argv } = this.scriptCommand(major, args);
    return spawn(command, argv, { env: this.env(major), detached: true, stdio: "ignore" });
  }

  get terminationMessage(): string {
    return readFileSync(this.host("termination-log"), "utf8");
  }

  /** A new data directory made by image `major`, as the entrypoint makes a Database's first one. */
  initdb(major: string): void {
    const { command, args } = this.command(major, "initdb", [
      ...["-D", this.pgdata, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C"],
      ...["--data-checksums", "--no-instructions"],
    ]);
    execFileSync(command, args, { stdio: ["ignore", "ignore", "pipe"], env: this.env(major) });
  }

  /**
   * A server of image `major` on PGDATA: TCP on loopback for the harness, its Unix socket in the
   * run directory for the programs of any image (a live pg_upgrade --check finds it there).
   */
  async server(major: string, options: { archiving?: boolean } = {}): Promise<PgServer> {
    this.port ??= await freePort();
    const server = new PodServer(
      `pg${major}`,
      this.host("data/pgdata"),
      this.port,
      this.host("run"),
    );
    const archiving = options.archiving
      ? [
          ...["-c", "archive_mode=on"],
          ...["-c", `archive_command=/bin/sh ${this.inner}/config/${FILE_ARCHIVE} "%p"`],
        ]
      : [];
    const postgres = this.command(major, "postgres", [
      ...["-D", this.pgdata, "-p", String(server.port), "-c", "listen_addresses=127.0.0.1"],
      ...["-c", `unix_socket_directories=${this.inner}/run`],
      ...["-c", `hba_file=${this.inner}/config/pg_hba.conf`],
      ...archiving,
    ]);
    // With the store's keys: a restored server's restore_command is pgbackrest archive-get.
    await server.start(60_000, { ...postgres, env: { ...this.env(major), ...this.keys } });
    return server;
  }

  /** The PID of a postmaster running on data directory `dir` (host path), if any. */
  postmasterOf(dir: string): number | undefined {
    const file = path.join(dir, "postmaster.pid");
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
    try {
      process.kill(pid, 0);
      return pid;
    } catch {
      return undefined;
    }
  }

  /** Makes the data volume a file system of `mib` MiB (before anything is written to it). */
  smallDataVolume(mib: number): void {
    execFileSync("mount", [
      ...["-t", "tmpfs", "-o", `size=${mib}m,uid=${IMAGE_UID},gid=${IMAGE_UID},mode=0700`],
      ...["pgkeeper-upgrade-test", this.host("data")],
    ]);
    this.smallVolume = true;
  }

  private smallVolume = false;

  /** Unmounts the pod's files from every image and removes them. */
  destroy(): void {
    for (const rootfs of this.mounted.values()) {
      spawnSync("umount", [path.join(rootfs, "etc", "hosts")]);
      const target = path.join(rootfs, this.inner);
      // Removed only once unmounted: never through the mount, into the pod's files.
      if (spawnSync("umount", ["--recursive", target]).status === 0) rmdirSync(target);
    }
    this.mounted.clear();
    if (this.smallVolume) spawnSync("umount", [this.host("data")]);
    rmSync(this.hostDir, { recursive: true, force: true });
  }
}
