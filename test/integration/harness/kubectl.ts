/**
 * The tests talk to the apiserver through kubectl, as a user would: real requests, real errors.
 */
import { spawn, spawnSync } from "node:child_process";
import { dump } from "js-yaml";
import { env } from "./env";

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl; never throws (tests assert on the result). */
export function kubectl(args: string[], input?: string, kubeconfig = env.kubeconfig): Result {
  const run = spawnSync(env.kubectl, ["--kubeconfig", kubeconfig, ...args], {
    input,
    encoding: "utf8",
    timeout: 60_000,
    // A namespace's Events at fleet scale (bench/fleet: 16 Databases) outgrow the default 1 MiB.
    maxBuffer: 256 * 1024 * 1024,
  });
  const timedOut = run.signal !== null || run.error !== undefined;
  const stderr =
    (run.stderr ?? "") +
    (timedOut ? `\n(kubectl stopped: ${run.error?.message ?? run.signal})` : "");
  return { code: timedOut ? -1 : (run.status ?? -1), stdout: run.stdout ?? "", stderr };
}

/** A JSON merge patch of one object; the result says whether the apiserver took it. */
export const mergePatch = (kind: string, namespace: string, name: string, patch: object): Result =>
  kubectl(["patch", kind, name, "-n", namespace, "--type=merge", "-p", JSON.stringify(patch)]);

/** Runs kubectl and throws with its stderr on failure. */
export function kubectlOk(args: string[], input?: string): string {
  const r = kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

export type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { uid: string; kind: string; name: string; controller?: boolean }[];
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
  [k: string]: unknown;
};

/** Creates an object; the result says whether the apiserver (and admission) took it. */
export const tryCreate = (obj: object): Result => kubectl(["create", "-f", "-"], dump(obj));

/** Creates an object that must be admitted: a refusal throws with its reason, never passes silently. */
export const create = (obj: object): string => kubectlOk(["create", "-f", "-"], dump(obj));

export function get(kind: string, namespace: string, name: string): Obj | undefined {
  const r = kubectl(["get", kind, "-n", namespace, name, "-o", "json"]);
  if (r.code !== 0) {
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`kubectl get ${kind} ${name}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout) as Obj;
}

export function list(kind: string, namespace: string, selector?: string): Obj[] {
  const args = ["get", kind, "-n", namespace, "-o", "json", ...(selector ? ["-l", selector] : [])];
  return (JSON.parse(kubectlOk(args)) as { items: Obj[] }).items;
}

export const del = (kind: string, namespace: string, name: string, ...extra: string[]): Result =>
  kubectl(["delete", kind, "-n", namespace, name, "--ignore-not-found", ...extra]);

export function createNamespace(name: string): void {
  kubectl(["create", "namespace", name]);
}

/** kubectl without blocking the test's event loop, for requests that must run at the same time. */
export function kubectlAsync(args: string[], input?: string): Promise<Result> {
  return new Promise(resolve => {
    const child = spawn(env.kubectl, ["--kubeconfig", env.kubeconfig, ...args]);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", chunk => out.push(chunk));
    child.stderr.on("data", chunk => err.push(chunk));
    child.on("close", code =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      }),
    );
    child.stdin.end(input);
  });
}
