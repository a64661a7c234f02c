/**
 * Runs corpus cases through the apiserver with kubectl, several at a time: each create is a
 * server-side dry run (admission, schema and CEL run; nothing is stored), each update case
 * creates its `old` spec for real and dry-runs the patch.
 *
 * `pepr dev` rebuilds and restarts on any change to the checkout, and while it does, its webhook
 * configurations are briefly gone (requests are admitted unchecked) or point at a port nobody
 * serves. So an outcome that may be such a moment is run again once the webhook judges a probe
 * spec again (`retryUnsettled`): a real gap stays a gap on every round.
 */
import { spawn } from "node:child_process";
import { InvalidCase, ValidCase } from "./types";

export interface Outcome {
  id: string;
  admitted: boolean;
  /** The apiserver's (or kubectl's) words when refused. */
  message: string;
}

export interface RunContext {
  kubectl: string;
  kubeconfig: string;
  namespace: string;
  /** Placeholder values: NS, SOURCE, SOURCE_UID, SECRET. */
  values: Record<string, string>;
}

interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

function exec(ctx: RunContext, args: string[], input?: string): Promise<Exec> {
  return new Promise(resolve => {
    const child = spawn(ctx.kubectl, ["--kubeconfig", ctx.kubeconfig, ...args], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", code => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(input ?? "");
  });
}

/** `value` with every ${KEY} replaced (in strings, keys and values alike). */
export function fill<T>(value: T, values: Record<string, string>): T {
  if (value === undefined) return value;
  const text = JSON.stringify(value).replace(/\$\{([A-Z_]+)\}/g, (whole, key: string) =>
    key in values ? values[key] : whole,
  );
  return JSON.parse(text) as T;
}

const manifest = (ctx: RunContext, name: string, spec: unknown): string =>
  JSON.stringify({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name, namespace: ctx.namespace },
    ...(spec === undefined ? {} : { spec: fill(spec, ctx.values) }),
  });

async function runCreate(ctx: RunContext, c: InvalidCase | ValidCase, i: number): Promise<Outcome> {
  const name = c.name ?? `case-${i}`;
  const r = await exec(
    ctx,
    ["create", "--dry-run=server", "-o", "name", "-f", "-"],
    manifest(ctx, name, c.spec),
  );
  return { id: c.id, admitted: r.code === 0, message: r.code === 0 ? r.stdout : r.stderr };
}

/** The stored original of an update case: named after the case, so a rerun finds it. */
const originalName = (id: string): string =>
  `u-${id.toLowerCase().replace(/[^a-z0-9-]/g, "-")}`.slice(0, 50).replace(/-+$/, "");

async function runUpdate(ctx: RunContext, c: InvalidCase): Promise<Outcome> {
  const name = originalName(c.id);
  const created = await exec(ctx, ["create", "-o", "name", "-f", "-"], manifest(ctx, name, c.old));
  if (created.code !== 0 && !created.stderr.includes("AlreadyExists")) {
    return { id: c.id, admitted: false, message: `SETUP: old spec refused: ${created.stderr}` };
  }
  const patch = JSON.stringify({ spec: fill(c.patch, ctx.values) });
  const args = [
    "patch",
    "database",
    name,
    "-n",
    ctx.namespace,
    "--type",
    "merge",
    "--dry-run=server",
    "-p",
    patch,
  ];
  const r = await exec(ctx, args);
  return { id: c.id, admitted: r.code === 0, message: r.code === 0 ? r.stdout : r.stderr };
}

/** Runs every case, `parallel` at a time, in order of the returned outcomes. */
export async function runCases(
  ctx: RunContext,
  cases: readonly (InvalidCase | ValidCase)[],
  parallel = 8,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array<Outcome>(cases.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++;
      const c = cases[i];
      outcomes[i] =
        "old" in c && c.old !== undefined ? await runUpdate(ctx, c) : await runCreate(ctx, c, i);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return outcomes;
}

/**
 * The webhook was not there (pepr dev restarting: its port closed, its configuration briefly
 * gone), as opposed to there and slow or failing. Only these outcomes are run again: a timeout
 * or an EOF from a webhook that is up is the failure issue 14 is about, and stands.
 */
export const UNREACHABLE =
  /connection refused|could not find the requested resource|no endpoints available/;

/**
 * True once the validating webhook refuses a spec only it refuses (storage below pgkeeper's
 * minimum passes the schema and CEL), i.e. the webhooks are registered and answering.
 */
export async function webhookJudges(ctx: RunContext): Promise<boolean> {
  const probe = manifest(ctx, "webhook-probe", { version: "15", storage: { size: "1Mi" } });
  const r = await exec(ctx, ["create", "--dry-run=server", "-o", "name", "-f", "-"], probe);
  return r.code !== 0 && r.stderr.includes("denied the request");
}

export interface Retry {
  unsettled: (o: Outcome, i: number) => boolean;
  ready: () => Promise<void>;
  rounds?: number;
}

/**
 * Runs again, up to `rounds` times, the cases `unsettled` picks (after `ready` resolves), and
 * returns the outcomes with the reruns' results in place and how many reruns it took.
 */
export async function retryUnsettled(
  ctx: RunContext,
  cases: readonly (InvalidCase | ValidCase)[],
  outcomes: Outcome[],
  { unsettled, ready, rounds = 3 }: Retry,
): Promise<{ outcomes: Outcome[]; reruns: number }> {
  const result = [...outcomes];
  let reruns = 0;
  for (let round = 0; round < rounds; round++) {
    const again = result.map((o, i) => (unsettled(o, i) ? i : -1)).filter(i => i >= 0);
    if (again.length === 0) break;
    await ready();
    reruns += again.length;
    const rerun = await runCases(
      ctx,
      again.map(i => cases[i]),
    );
    again.forEach((i, k) => (result[i] = rerun[k]));
  }
  return { outcomes: result, reruns };
}
