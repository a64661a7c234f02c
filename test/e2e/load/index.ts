/**
 * Test-side handle of the load process (load.ts) and fault injection on the node's processes.
 */
import { ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { env } from "../../integration/harness/env";
import { get } from "../../integration/harness/kubectl";
import type { LoadConfig } from "./load";

const decode = (b64: string | undefined): string => Buffer.from(b64 ?? "", "base64").toString();

export interface Ack {
  id: number;
  at: number;
  /** Address of the server that acknowledged it (a pod IP). */
  server: string;
}

export class Load {
  private child?: ChildProcess;
  readonly out = mkdtempSync(join(tmpdir(), "pgkeeper-load-"));

  constructor(
    private readonly namespace: string,
    private readonly database: string,
    private readonly table = "load",
  ) {}

  /** Starts writing through `<db>-rw` (the table must exist) and watching the instances. */
  start(): void {
    const app = get("secret", this.namespace, `${this.database}-app`)?.data ?? {};
    const superuser = get("secret", this.namespace, `${this.database}-superuser`)?.data ?? {};
    const svc = get("service", this.namespace, `${this.database}-rw`);
    const cfg: LoadConfig = {
      out: this.out,
      app: {
        host: String((svc?.spec as { clusterIP: string }).clusterIP),
        port: 5432,
        user: decode(app.username),
        password: decode(app.password),
        database: decode(app.dbname),
      },
      superuserPassword: decode(superuser.password),
      kubectl: env.kubectl,
      kubeconfig: env.kubeconfig,
      namespace: this.namespace,
      database: this.database,
      table: this.table,
    };
    const file = join(this.out, "config.json");
    writeFileSync(file, JSON.stringify(cfg), { mode: 0o600 });
    this.child = spawn(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", join(__dirname, "load.ts"), file],
      { stdio: "inherit", env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" } },
    );
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>(resolve => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    });
  }

  private lines(file: string): string[] {
    try {
      return readFileSync(join(this.out, file), "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  }

  acks(): Ack[] {
    return this.lines("acks").map(l => {
      const [id, at, server] = l.split(" ");
      return { id: Number(id), at: Number(at), server };
    });
  }

  violations(): string[] {
    return this.lines("violations");
  }

  primaries(): string[] {
    return this.lines("primaries");
  }

  errors(): string[] {
    return this.lines("errors");
  }

  /** Times (ms) of the writer's failed attempts. */
  errorTimes(): number[] {
    return this.errors().map(l => Number(l.split(" ")[0]));
  }
}

/**
 * The write acknowledged once writes failed after `t0`: the end of the outage the writer saw
 * (undefined while it lasts; the first ack after t0 when no write failed at all).
 */
export function recoveredAfter(load: Load, t0: number): Ack | undefined {
  const failed = load.errorTimes().filter(t => t >= t0);
  const acks = load.acks();
  const lastFailure = failed.length ? Math.max(...failed) : t0;
  return acks.find(a => a.at >= lastFailure);
}

/** The first write acknowledged at or after `t` (ms), optionally by a server other than `not`. */
export const firstAckAfter = (acks: Ack[], t: number, not?: string): Ack | undefined =>
  acks.find(a => a.at >= t && a.server !== not);

/**
 * Host PID of the postmaster in a pod: the node runs containers as host processes, so /proc shows
 * them; the pod's cgroup path carries its UID (with dashes or, under systemd, underscores).
 */
export function postmasterPid(podUid: string): number {
  const marks = [podUid, podUid.replace(/-/g, "_")];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cgroup = readFileSync(`/proc/${entry}/cgroup`, "utf8");
      if (!marks.some(m => cgroup.includes(m))) continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const exe = readlinkSync(`/proc/${entry}/exe`);
      // The postmaster: the postgres binary started with -D (its children are forks without it).
      if (exe.endsWith("/postgres") && cmd.includes("-D")) return Number(entry);
    } catch {
      // the process went away while we looked
    }
  }
  throw new Error(`no postmaster found for pod ${podUid}`);
}
