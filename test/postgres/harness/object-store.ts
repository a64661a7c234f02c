/**
 * A real S3-compatible object store for the postgres tier: the local cluster's versitygw binary
 * (hack/cluster/build.sh versitygw; PGKEEPER_VERSITYGW overrides the path), started on a free
 * loopback port with its posix backend in a temporary directory and a certificate for `localhost`
 * (pgBackRest's S3 client requires TLS and checks DNS names only) from a throwaway CA. Stopped by
 * its PID.
 */
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./os";

const VERSITYGW =
  process.env.PGKEEPER_VERSITYGW ??
  path.join(
    process.env.PGKEEPER_CACHE ?? path.join(homedir(), ".cache/pgkeeper"),
    "node-tools/bin/versitygw",
  );

export class ObjectStore {
  readonly bucket = "pgkeeper";
  readonly accessKey = `pgk${randomBytes(6).toString("hex")}`;
  readonly secretKey = randomBytes(20).toString("hex");
  private proc?: ChildProcess;

  private constructor(
    readonly root: string,
    readonly port: number,
  ) {}

  get caFile(): string {
    return path.join(this.root, "ca.crt");
  }

  get endpoint(): string {
    return `localhost:${this.port}`;
  }

  /** pgBackRest's environment for this store's credentials. */
  get credentialsEnv(): Record<string, string> {
    return {
      PGBACKREST_REPO1_S3_KEY: this.accessKey,
      PGBACKREST_REPO1_S3_KEY_SECRET: this.secretKey,
    };
  }

  static async start(): Promise<ObjectStore> {
    const root = mkdtempSync(path.join(tmpdir(), "pgk-s3-"));
    // The servers' account reads the CA (archive_command runs as it).
    chmodSync(root, 0o755);
    const store = new ObjectStore(root, await freePort());
    store.issueCertificate();
    mkdirSync(path.join(root, "data", store.bucket), { recursive: true });
    await store.run();
    return store;
  }

  private issueCertificate(): void {
    const file = (name: string) => path.join(this.root, name);
    const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });
    writeFileSync(file("tls.ext"), "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n");
    openssl(
      ...["req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-days", "2"],
      ...["-subj", "/CN=pgk-test-ca", "-addext", "basicConstraints=critical,CA:TRUE"],
      ...[
        "-addext",
        "keyUsage=critical,keyCertSign",
        "-keyout",
        file("ca.key"),
        "-out",
        file("ca.crt"),
      ],
    );
    openssl(
      ...["req", "-new", "-nodes", "-newkey", "rsa:2048", "-subj", "/CN=localhost"],
      ...["-keyout", file("tls.key"), "-out", file("tls.csr")],
    );
    chmodSync(file("ca.crt"), 0o644);
    openssl(
      ...["x509", "-req", "-in", file("tls.csr"), "-CA", file("ca.crt"), "-CAkey", file("ca.key")],
      ...["-CAcreateserial", "-days", "2", "-extfile", file("tls.ext"), "-out", file("tls.crt")],
    );
  }

  private async run(): Promise<void> {
    const proc = spawn(
      VERSITYGW,
      [
        "--port",
        `127.0.0.1:${this.port}`,
        "--cert",
        path.join(this.root, "tls.crt"),
        "--key",
        path.join(this.root, "tls.key"),
        "--health",
        "/health",
        "--quiet",
        "posix",
        path.join(this.root, "data"),
      ],
      {
        stdio: ["ignore", "ignore", "pipe"],
        env: {
          PATH: process.env.PATH,
          ROOT_ACCESS_KEY: this.accessKey,
          ROOT_SECRET_KEY: this.secretKey,
        },
      },
    );
    this.proc = proc;
    // Why it ended, if it does (run 26 had only its exit code: a port taken meanwhile?).
    let stderr = "";
    proc.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    const deadline = Date.now() + 30_000;
    while (!this.healthy()) {
      if (proc.exitCode !== null)
        throw new Error(
          `versitygw (${VERSITYGW}) on port ${this.port} exited: ${proc.exitCode}: ${stderr.trim()}`,
        );
      if (Date.now() > deadline) throw new Error("versitygw did not answer /health within 30 s");
      await new Promise(r => setTimeout(r, 100));
    }
  }

  private healthy(): boolean {
    try {
      execFileSync(
        "curl",
        [
          "-fsS",
          "--max-time",
          "2",
          "--cacert",
          this.caFile,
          `https://localhost:${this.port}/health`,
        ],
        { stdio: "ignore" },
      );
      return true;
    } catch {
      return false;
    }
  }

  /** Stops the server (its PID) and starts it again on the same port and data: an outage. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise(r => proc.once("exit", r));
    proc.kill("SIGTERM");
    await exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.run();
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}
