/**
 * Runs the operator as a developer does with `pepr dev --host localhost` (admission through real
 * webhooks, watches and reconcile in one local process), as its own user, in its own process
 * group so a test can stop it gracefully or kill -9 it mid-reconcile. It runs what pepr dev runs
 * without pepr dev's lint and type-check at every start (hack/dev-operator/run.ts): a tier starts
 * an operator per file, and that check cost a minute of both cores each time.
 */
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { env } from "./env";
import { kubectl } from "./kubectl";
import { freePort, scrapeMetric } from "./metrics";
import { CHILD_KINDS } from "../../../capabilities/database/api/kinds";
import { waitFor } from "./wait";

export const WEBHOOK_NAME = "pepr-pgkeeper";
const PEPR_PORT = 3000; // fixed by pepr dev: the webhook URL it registers is https://<host>:3000

/** Settings that make the loops observable within a test's patience. */
export const TEST_OPERATOR_ENV = {
  PGKEEPER_RESYNC_SECONDS: "10",
  PGKEEPER_BACKOFF_BASE_MS: "1000",
  PGKEEPER_BACKOFF_CAP_MS: "8000",
  LOG_LEVEL: "info",
  // One operator at a time, always the same leader-election identity: a restarted operator
  // renews its own Lease at once instead of waiting for its previous incarnation's to expire.
  PGKEEPER_LEADER_IDENTITY: "pgkeeper-test-operator",
  // With the node, pgkeeper's images come from the cluster's registry (hack/cluster): the kubelet
  // pulls them as in production (nothing but pause and busybox is imported).
  ...(process.env.PGKEEPER_REGISTRY
    ? { PGKEEPER_IMAGE_REPOSITORY: `${process.env.PGKEEPER_REGISTRY}/pgkeeper` }
    : {}),
};

const healthy = (): Promise<boolean> =>
  new Promise(resolve => {
    const req = request(
      {
        host: "127.0.0.1",
        port: PEPR_PORT,
        path: "/healthz",
        rejectUnauthorized: false,
        timeout: 2000,
      },
      res => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on("error", () => resolve(false));
    req.on("timeout", () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });

let runs = 0;

/** The dev runner, built once per test process (a second or so). */
let devRunner: string | undefined;
function devOperator(): string {
  if (!devRunner) {
    execFileSync(
      join(env.repo, "node_modules", ".bin", "ts-node"),
      ["--transpile-only", join(env.repo, "hack", "dev-operator", "build.ts")],
      { cwd: env.repo, stdio: "inherit" },
    );
    devRunner = join(env.repo, ".work", "dev-operator", "run.js");
  }
  return devRunner;
}

export class Operator {
  private child?: ChildProcess;
  readonly logFile: string;
  /** Where this operator serves its own metrics (a free port, chosen at each start). */
  metricsPort = 0;

  constructor(
    private readonly name = "operator",
    private readonly extraEnv: Record<string, string> = {},
  ) {
    mkdirSync(env.logDir, { recursive: true });
    this.logFile = join(env.logDir, `${name}-${process.pid}-${++runs}.log`);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Starts pepr dev and waits until its webhooks answer. pepr dev sometimes fails to register its
   * webhooks (a transient API error) and then idles in watch mode without serving: such an
   * attempt is stopped and retried.
   */
  async start(attempts = 3): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.startOnce(120_000);
        return;
      } catch (err) {
        await this.stop("SIGKILL");
        if (attempt >= attempts) throw err;
      }
    }
  }

  private async startOnce(timeoutMs: number): Promise<void> {
    await waitFor("port 3000 to be free", async () => !(await healthy()), { timeoutMs: 30_000 });
    const log = createWriteStream(this.logFile, { flags: "a" });
    this.metricsPort = await freePort();
    this.child = spawn(process.execPath, [devOperator(), "--host", "localhost"], {
      cwd: env.repo,
      detached: true, // own process group: pepr dev forks the module; we stop both together
      env: {
        ...process.env,
        ...TEST_OPERATOR_ENV,
        ...this.extraEnv,
        KUBECONFIG: env.operatorKubeconfig,
        PEPR_MODE: "",
        HOSTNAME: this.name,
        PGKEEPER_METRICS_PORT: String(this.metricsPort),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child.stdout?.pipe(log);
    this.child.stderr?.pipe(log);
    const exited = new Promise<never>((_, reject) =>
      this.child?.once("exit", code =>
        reject(new Error(`pepr dev exited with ${code}; see ${this.logFile}`)),
      ),
    );
    exited.catch(() => undefined);
    await Promise.race([
      waitFor("the operator's webhook to answer", healthy, { timeoutMs }),
      exited,
    ]);
    await waitFor(
      "the webhook configurations",
      () => kubectl(["get", "validatingwebhookconfiguration", WEBHOOK_NAME]).code === 0,
      { timeoutMs: 30_000 },
    );
    // Tests act once it leads and every informer has listed (the cache is what it reads).
    await waitFor(
      "the operator to lead with every informer synced",
      async () =>
        (await this.metric("pgkeeper_leader")) === 1 &&
        (await this.metric("pgkeeper_informer_synced")) >= CHILD_KINDS.length,
      { timeoutMs: 60_000 },
    );
  }

  /** One of the operator's own metrics (summed over its series, or those matching `filter`). */
  metric(name: string, filter = ""): Promise<number> {
    return scrapeMetric(this.metricsPort, name, filter);
  }

  /** Stops the operator: SIGTERM (graceful, like a rollout) or SIGKILL (a crash). */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    if (!child?.pid || child.exitCode !== null) return;
    const done = new Promise<void>(resolve => child.once("exit", () => resolve()));
    try {
      process.kill(-child.pid, signal);
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, 15_000);
    await done;
    clearTimeout(timer);
    // The forked module may outlive pepr dev by a moment; wait until nobody serves the port.
    await waitFor("port 3000 to be released", async () => !(await healthy()), {
      timeoutMs: 30_000,
    });
    this.child = undefined;
  }
}

/** Removes the webhook configurations, as if the operator had never been installed. */
export function removeWebhooks(): void {
  kubectl(["delete", "mutatingwebhookconfiguration", WEBHOOK_NAME, "--ignore-not-found"]);
  kubectl(["delete", "validatingwebhookconfiguration", WEBHOOK_NAME, "--ignore-not-found"]);
}
