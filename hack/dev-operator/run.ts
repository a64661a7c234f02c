/**
 * What `pepr dev --host HOST --yes` does (node_modules/pepr/src/cli/dev.ts), without the lint and
 * type-check Pepr runs at every start (ESLint with type information over every .ts file of the
 * repository, then tsc: about a minute of both cores): bundle the module with esbuild as Pepr
 * does, register its webhooks for https://HOST:3000 (Pepr's Assets and deployWebhook), and run
 * it in dev mode, admission and watches in one process.
 *
 * The test tiers start an operator for every file and restart some mid-test (test/integration/
 * harness/operator.ts); `npm test` lints and type-checks once, in steps of its own. `npm start`
 * keeps `pepr dev` itself, the design's development path. Built by ./build.ts into .work/.
 *   node .work/dev-operator/run.js --host localhost
 */
import { ChildProcess, fork } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { K8s, kind } from "kubernetes-fluent-client";
import { Assets } from "pepr/dist/lib/assets/assets";
import { deployWebhook } from "pepr/dist/lib/assets/deploy";
import { Store } from "pepr/dist/lib/k8s";

const repo = resolve(__dirname, "..", "..");
const out = join(repo, ".work", "dev-operator");
const hostArg = process.argv.indexOf("--host");
const host = hostArg > 0 ? process.argv[hostArg + 1] : "localhost";

interface PackageJson {
  description?: string;
  dependencies?: Record<string, string>;
  pepr: { uuid: string; [key: string]: unknown };
}
const readJson = (path: string): PackageJson => JSON.parse(readFileSync(path, "utf8"));

async function main(): Promise<void> {
  const cfg = readJson(join(repo, "package.json"));
  const pepr = readJson(join(repo, "node_modules", "pepr", "package.json"));
  const path = join(out, `pepr-${cfg.pepr.uuid}.js`);
  // As Pepr bundles a module: its own dependencies, pepr and the Kubernetes client external.
  await build({
    absWorkingDir: repo,
    bundle: true,
    entryPoints: ["pepr.ts"],
    external: [...Object.keys(pepr.dependencies ?? {}), "pepr", "@kubernetes/client-node"],
    format: "cjs",
    keepNames: true,
    outfile: path,
    platform: "node",
    sourcemap: true,
    logLevel: "warning",
  });
  const webhook = new Assets(
    { ...cfg.pepr, description: cfg.description } as never,
    path,
    [],
    host,
  );
  writeFileSync(join(out, "insecure-tls.crt"), webhook.tls.pem.crt);
  writeFileSync(join(out, "insecure-tls.key"), webhook.tls.pem.key);
  await webhook.deploy(deployWebhook, false, 30);

  const name = `pepr-${cfg.pepr.uuid}`;
  const module: ChildProcess = fork(path, {
    cwd: repo,
    env: {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? "debug",
      PEPR_MODE: "dev",
      PEPR_API_PATH: webhook.apiPath,
      PEPR_PRETTY_LOGS: "true",
      SSL_KEY_PATH: join(out, "insecure-tls.key"),
      SSL_CERT_PATH: join(out, "insecure-tls.crt"),
    },
    stdio: "inherit",
  });
  const removeWebhooks = () =>
    Promise.allSettled([
      K8s(kind.MutatingWebhookConfiguration).Delete(name),
      K8s(kind.ValidatingWebhookConfiguration).Delete(name),
      K8s(Store).InNamespace("pepr-system").Delete(`${name}-schedule`),
      K8s(Store).InNamespace("pepr-system").Delete(`${name}-store`),
    ]);
  // As pepr dev: a module that ends by itself takes its webhooks and stores with it. A signal
  // to the process group (how the harness stops an operator, like Ctrl-C stops pepr dev) ends
  // both processes at once and removes nothing: the harness removes the webhooks itself.
  module.on("exit", code => {
    void removeWebhooks().then(() => process.exit(code ?? 0));
  });
}

main().catch(err => {
  console.error("dev operator failed to start:", err);
  process.exit(1);
});
