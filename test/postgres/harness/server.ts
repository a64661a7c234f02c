/**
 * One PostgreSQL server process in a temporary data directory: start, stop (smart / fast /
 * immediate), freeze (SIGSTOP) and thaw, and SQL through psql over its Unix socket (trust), so
 * the harness never depends on the code under test.
 */
import { ChildProcess, spawn, spawnSync } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import path from "node:path";
import { bin, childPids, RunAs } from "./os";

export type StopMode = "smart" | "fast" | "immediate";
const STOP_SIGNAL: Record<StopMode, NodeJS.Signals> = {
  smart: "SIGTERM",
  fast: "SIGINT",
  immediate: "SIGQUIT",
};

const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export class PgServer {
  private proc?: ChildProcess;
  private exited?: Promise<void>;

  constructor(
    readonly name: string,
    readonly dataDir: string,
    readonly port: number,
    readonly password: string,
    private readonly account: RunAs,
  ) {}

  /** What the operator's SQL functions connect to. */
  get target(): { host: string; port: number; password: string } {
    return { host: "127.0.0.1", port: this.port, password: this.password };
  }

  get pid(): number | undefined {
    const proc = this.proc;
    return proc && proc.exitCode === null && proc.signalCode === null ? proc.pid : undefined;
  }

  /** Beside PGDATA, as in the pod: pg_rewind copies PGDATA file by file and cannot read a socket. */
  get socketDir(): string {
    return `${this.dataDir}.sock`;
  }

  get logFile(): string {
    return path.join(this.dataDir, "..", `${this.name}.log`);
  }

  /**
   * Starts the postmaster and waits until it accepts connections (hot standby: consistent).
   * `launch` runs another program that ends by exec'ing postgres (the instance entrypoint), so
   * the process this object tracks is the postmaster either way.
   */
  async start(timeoutMs = 60_000, launch?: Launch): Promise<void> {
    if (this.pid) throw new Error(`${this.name} is already running`);
    const log = openSync(this.logFile, "a");
    const [command, args, env] = launch
      ? [launch.command, launch.args, launch.env]
      : [bin("postgres"), ["-D", this.dataDir], {}];
    const proc = spawn(command, args, {
      ...this.account,
      stdio: ["ignore", log, log],
      env: { PATH: process.env.PATH, LANG: "C", ...env },
    });
    closeSync(log);
    this.proc = proc;
    this.exited = new Promise(resolve => proc.once("exit", () => resolve()));
    const deadline = Date.now() + timeoutMs;
    while (!this.ready()) {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`${this.name} exited while starting:\n${this.logTail()}`);
      if (Date.now() > deadline) {
        // Not left running: a server the test never saw ready keeps jest from exiting (a
        // fresh clone's catalog servers did, and the tier hung after its last test).
        proc.kill("SIGKILL");
        await this.exited;
        throw new Error(`${this.name} not ready in ${timeoutMs} ms:\n${this.logTail()}`);
      }
      await sleep(100);
    }
  }

  private ready(): boolean {
    const r = spawnSync(bin("pg_isready"), ["-q", "-h", this.socketDir, "-p", String(this.port)], {
      timeout: 5000,
    });
    return r.status === 0;
  }

  /** Stops the server and waits for the postmaster to exit. */
  async stop(mode: StopMode = "fast", timeoutMs = 60_000): Promise<void> {
    const pid = this.pid;
    if (!pid || !this.exited) return;
    this.thaw(); // a frozen server cannot act on the signal
    process.kill(pid, STOP_SIGNAL[mode]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>(r => (timer = setTimeout(() => r(true), timeoutMs)));
    const late = await Promise.race([this.exited.then(() => false), timedOut]);
    clearTimeout(timer);
    if (late) {
      process.kill(pid, "SIGKILL");
      await this.exited;
      throw new Error(`${this.name} ignored ${mode} shutdown for ${timeoutMs} ms; killed`);
    }
  }

  /**
   * SIGKILL to the postmaster and every child at once, as when a container or a node dies: no
   * shutdown at all, the lock file postmaster.pid stays behind.
   */
  async killAll(): Promise<void> {
    const exited = this.exited;
    if (!this.pid || !exited) return;
    this.signalAll("SIGKILL");
    await exited;
  }

  async restart(mode: StopMode = "fast"): Promise<void> {
    await this.stop(mode);
    await this.start();
  }

  /** SIGSTOP the postmaster and every child: TCP connects still complete, nothing answers. */
  freeze(): void {
    this.signalAll("SIGSTOP");
  }

  /**
   * SIGSTOP the postmaster alone, as soon as a TCP client's session is up (authenticated: idle
   * or running a statement): that session goes on, but nothing the postmaster does for it
   * happens any more (relaying pg_reload_conf()'s SIGHUP, for one). Backends still in
   * authentication do not count: one may be left over from a client that gave up while the
   * server was frozen. Resolves once frozen.
   */
  async freezePostmasterOnceSessionUp(timeoutMs = 10_000): Promise<void> {
    const pid = this.pid;
    if (!pid) throw new Error(`${this.name} is not running`);
    const deadline = Date.now() + timeoutMs;
    while (!childPids(pid).some(p => this.isTcpSession(p))) {
      if (Date.now() > deadline) throw new Error(`${this.name}: no TCP client connected`);
      await sleep(2);
    }
    process.kill(pid, "SIGSTOP");
  }

  private isTcpSession(pid: number): boolean {
    try {
      // update_process_title: "postgres: USER DB 127.0.0.1(PORT) idle" (or the statement's tag)
      const title = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      return /127\.0\.0\.1\(\d+\) (idle|SELECT|ALTER SYSTEM)/.test(title);
    } catch {
      return false;
    }
  }

  thaw(): void {
    this.signalAll("SIGCONT");
  }

  private signalAll(signal: NodeJS.Signals): void {
    const pid = this.pid;
    if (!pid) return;
    for (const p of [pid, ...childPids(pid)]) {
      try {
        process.kill(p, signal);
      } catch {
        // a backend that just exited
      }
    }
  }

  /** Runs SQL as postgres over the Unix socket; returns psql's unaligned output, trimmed. */
  sql(query: string, timeoutMs = 30_000): string {
    const r = spawnSync(
      bin("psql"),
      ["-h", this.socketDir, "-p", String(this.port), "-U", "postgres", "-d", "postgres"].concat([
        "-X",
        "-At",
        "-v",
        "ON_ERROR_STOP=1",
        "-c",
        query,
      ]),
      { encoding: "utf8", timeout: timeoutMs, env: { PATH: process.env.PATH, LANG: "C" } },
    );
    if (r.status !== 0)
      throw new Error(`${this.name}: psql ${JSON.stringify(query)} failed: ${r.stderr || r.error}`);
    return r.stdout.trim();
  }

  /** Polls `query` until it returns `expected`. */
  async waitFor(query: string, expected: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      last = this.sql(query);
      if (last === expected) return;
      await sleep(100);
    }
    throw new Error(`${this.name}: ${query} returned ${JSON.stringify(last)}, not ${expected}`);
  }

  logTail(lines = 20): string {
    try {
      return readFileSync(this.logFile, "utf8").split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }
}
