/**
 * Runs the operator as Pepr's watcher pod does (PEPR_WATCH_MODE=true: watches, reconcile, no
 * admission), but as a plain local process on ports of its own, so that two of them can run side
 * by side — what the leader-election tests need. The module is bundled as `pepr build` does
 * (esbuild, packages external); Pepr's HTTPS server gets a throwaway self-signed certificate.
 */
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { env } from "./env";
import { kubectl, kubectlOk } from "./kubectl";
import { freePort, httpText, scrapeMetric } from "./metrics";
import { TEST_OPERATOR_ENV } from "./operator";
import { waitFor } from "./wait";

const bundleDir = join(env.repo, "dist", "integration");
const bundle = join(bundleDir, "pgkeeper-watcher.js");
const tlsDir = join(env.work, "watcher-tls");

/** Bundles pepr.ts (once per test run); externals resolve from the repo's node_modules. */
export function buildWatcher(): string {
  mkdirSync(bundleDir, { recursive: true });
  buildSync({
    entryPoints: [join(env.repo, "pepr.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    outfile: bundle,
    // For bench/profile, which names the source file of each frame of a CPU profile.
    sourcemap: true,
    logLevel: "warning",
  });
  return bundle;
}

function ensureTls(): { key: string; cert: string } {
  const key = join(tlsDir, "tls.key");
  const cert = join(tlsDir, "tls.crt");
  if (!existsSync(key) || !existsSync(cert)) {
    mkdirSync(tlsDir, { recursive: true });
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdio: "ignore" },
    );
  }
  return { key, cert };
}

/**
 * What Pepr's watcher expects to exist (pepr dev and pepr deploy create them): its namespace
 * and the PeprStore CRD, without which it never starts its watches.
 */
export function ensurePeprPrerequisites(): void {
  if (kubectl(["get", "namespace", "pepr-system"]).code !== 0)
    kubectlOk(["create", "namespace", "pepr-system"]);
  if (kubectl(["get", "crd", "peprstores.pepr.dev"]).code === 0) return;
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "peprstores.pepr.dev" },
    spec: {
      group: "pepr.dev",
      scope: "Namespaced",
      names: { kind: "PeprStore", plural: "peprstores", singular: "peprstore" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      ],
    },
  };
  // As field manager "pepr": `pepr dev` later applies its own copy without force, which would
  // conflict (409) with fields owned by any other manager and leave it without webhooks.
  kubectlOk(["apply", "--server-side", "--field-manager=pepr", "-f", "-"], JSON.stringify(crd));
  kubectlOk(["wait", "--for=condition=Established", "crd/peprstores.pepr.dev", "--timeout=30s"]);
}

export class Watcher {
  private child?: ChildProcess;
  readonly logFile: string;
  metricsPort = 0;

  constructor(
    readonly identity: string,
    private readonly extraEnv: Record<string, string>,
    /** Options for node itself, e.g. --cpu-prof (which NODE_OPTIONS refuses). */
    private readonly nodeArgs: string[] = [],
  ) {
    mkdirSync(env.logDir, { recursive: true });
    this.logFile = join(env.logDir, `watcher-${identity}-${process.pid}.log`);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const tls = ensureTls();
    this.metricsPort = await freePort();
    const log = createWriteStream(this.logFile, { flags: "a" });
    this.child = spawn(process.execPath, [...this.nodeArgs, bundle], {
      cwd: env.repo,
      detached: true, // own process group: kill -9 reaches everything it started
      env: {
        ...process.env,
        ...TEST_OPERATOR_ENV,
        ...this.extraEnv,
        KUBECONFIG: env.operatorKubeconfig,
        PEPR_MODE: "",
        PEPR_WATCH_MODE: "true",
        SSL_KEY_PATH: tls.key,
        SSL_CERT_PATH: tls.cert,
        PGKEEPER_PEPR_PORT: String(await freePort()),
        PGKEEPER_METRICS_PORT: String(this.metricsPort),
        PGKEEPER_LEADER_IDENTITY: this.identity,
        HOSTNAME: this.identity,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child.stdout?.pipe(log);
    this.child.stderr?.pipe(log);
    this.child.once("exit", (code, signal) =>
      log.write(`\n[harness] watcher ${this.identity} exited: code ${code}, signal ${signal}\n`),
    );
    await waitFor(`watcher ${this.identity}'s metrics endpoint`, () => this.scrape(), {
      timeoutMs: 60_000,
    });
  }

  scrape(): Promise<string | undefined> {
    return httpText(this.metricsPort, "/metrics");
  }

  metric(name: string, filter = ""): Promise<number> {
    return scrapeMetric(this.metricsPort, name, filter);
  }

  /** SIGTERM (a rollout) or SIGKILL (a crash), to the whole process group. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
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
    this.child = undefined;
  }
}
