/**
 * bench/fuzz (issue 14): seeded mutations of valid Databases (generate.ts) through admission,
 * each outcome compared with the oracle's verdict (oracle/, written from the API, the parameter
 * catalogs and Kubernetes' rules, not from the admission code):
 *
 *   --seed S --cases N [--from K] [--concurrency C] [--mode apiserver|direct|both]
 *   --seed S --case N [--mode none|apiserver|direct|both]   one case, printed with its verdict
 *
 * Prints per mode: cases, rate, latency p50/p99, outcomes (admitted, denied cleanly, robustness
 * failures), and where the oracle disagrees (admitted but invalid, false refusals), with a few
 * examples per group; unknowns apart; then the timed hostile case (hostile.ts). Figures, not a
 * test: exit 0 unless the harness broke. A run of cases also writes its figures as JSON
 * (bench/lib/result.ts); --smoke: 20 cases of seed 1, both modes, unless flags say otherwise. Run through bench/fuzz.sh (the cluster, and the
 * port-3000 lock the tests share).
 */
import { installCrd, freshNamespace } from "../../test/integration/harness/fixtures";
import { create, kubectl } from "../../test/integration/harness/kubectl";
import { Operator, removeWebhooks } from "../../test/integration/harness/operator";
import { apiClient, pool } from "../lib/apiclient";
import { isSmoke, runStart, saveResult } from "../lib/result";
import type { FuzzMode, FuzzParameters } from "../report/fuzz";
import { Args, Mode, parseArgs } from "./args";
import { BASES } from "./bases";
import { FuzzCase, generateCase } from "./generate";
import { runHostile } from "./hostile";
import type { ClusterView } from "./oracle/cluster";
import { judgeDatabase } from "./oracle/database";
import { printTally } from "./print";
import { modeFigures } from "./figures";
import { apiserverSender, directSender, Sender } from "./senders";
import { FUZZ_SECRETS, secretManifest } from "./setup";
import { Tally } from "./tally";
import { runMain } from "../lib/main";
import { stopOperator } from "../lib/operator";

/** Long strings are shown by their length: a replayed case must print in a terminal. */
const shorten = (_key: string, v: unknown): unknown =>
  typeof v === "string" && v.length > 200 ? `${v.slice(0, 60)}… (${v.length} characters)` : v;

function printCase(c: FuzzCase, cluster?: ClusterView): void {
  const j = judgeDatabase(c.object, { cluster });
  console.log(`case ${c.index} of seed ${c.seed}, base ${c.base}`);
  c.changes.forEach(ch => console.log(`  ${ch}`));
  console.log(JSON.stringify(c.object, shorten, 2).slice(0, 20_000));
  console.log(`oracle: ${j.verdict}`);
  j.findings.forEach(f => console.log(`  ${f.field}: ${f.why} [${f.source}]`));
  j.unknowns.forEach(u => console.log(`  unknown: ${u}`));
}

/** Every Database there is (dry-run creates store none): what a recovery's source read finds. */
async function clusterView(ns: string): Promise<ClusterView> {
  const api = apiClient(1);
  const list = async (path: string) =>
    (JSON.parse((await api("GET", path)).body) as { items: Record<string, unknown>[] }).items;
  const databases = new Map<string, { uid: string; version: string }>();
  for (const d of await list("/apis/pgkeeper.dev/v1alpha1/databases")) {
    const m = d.metadata as { namespace: string; name: string; uid: string };
    const version = String((d.spec as { version?: unknown } | undefined)?.version);
    databases.set(`${m.namespace}/${m.name}`, { uid: m.uid, version });
  }
  const secrets = (await list(`/api/v1/namespaces/${ns}/secrets`)).map(
    s => (s.metadata as { name: string }).name,
  );
  return { namespace: ns, secrets: new Set(secrets), databases };
}

const sender = (mode: Mode, ns: string, concurrency: number): Sender =>
  mode === "apiserver" ? apiserverSender(ns, concurrency) : directSender(ns, concurrency);

/** The bases unmutated: each must be admitted, or every case built on it starts refused. */
async function preflight(mode: Mode, send: Sender): Promise<void> {
  for (const [i, base] of BASES.entries()) {
    const c: FuzzCase = {
      seed: 0,
      index: -1 - i,
      base: base.name,
      changes: [],
      object: base.object,
    };
    const o = await send(c);
    const shown = o.kind === "admitted" ? "admitted" : `${o.kind}: ${o.message.slice(0, 300)}`;
    if (o.kind !== "admitted") console.log(`${mode}: base ${base.name} NOT admitted (${shown})`);
  }
}

async function runMode(
  mode: Mode,
  args: Args,
  ns: string,
  cluster: ClusterView,
): Promise<FuzzMode> {
  const send = sender(mode, ns, args.concurrency);
  await preflight(mode, send);
  const tally = new Tally();
  const started = Date.now();
  await pool(args.cases, args.concurrency, async i => {
    const c = generateCase(args.seed, args.from + i);
    const outcome = await send(c);
    tally.add(c, judgeDatabase(c.object, { cluster, direct: mode === "direct" }), outcome);
  });
  const seconds = (Date.now() - started) / 1000;
  printTally(tally, { mode, seconds, ...args });
  await runHostile(mode, send);
  return modeFigures(mode, tally, seconds);
}

async function replay(args: Args, index: number, ns: string, cluster: ClusterView): Promise<void> {
  const c = generateCase(args.seed, index);
  printCase(c, cluster);
  for (const mode of args.modes) {
    const direct = judgeDatabase(c.object, { cluster, direct: true });
    if (mode === "direct")
      console.log(`oracle, as sent straight to the webhook: ${direct.verdict}`);
    const o = await sender(mode, ns, 1)(c);
    console.log(
      `${mode}: ${o.kind} in ${o.ms.toFixed(0)} ms${o.kind === "admitted" ? "" : `: ${o.message}`}`,
    );
  }
}

/** The smoke run's size where the flags name none. */
const SMOKE_ARGS = ["--seed", "1", "--cases", "20"];

async function main(): Promise<void> {
  const smoke = isSmoke();
  const start = runStart();
  const argv = process.argv.slice(2).filter(a => a !== "--smoke");
  const args = parseArgs(smoke ? [...argv, ...SMOKE_ARGS] : argv);
  if (args.replay !== undefined && args.modes.length === 0) {
    return printCase(generateCase(args.seed, args.replay));
  }
  console.log(`bench/fuzz: seed ${args.seed}, modes ${args.modes.join(", ")}`);
  await installCrd();
  const ns = freshNamespace("bench-fuzz");
  // An image for every major: the oracle judges the rules of the spec alone, and which majors an
  // operator has images for is its configuration (tested in validate.test.ts and the integration
  // tier's admission test).
  const operator = new Operator("bench-fuzz", {
    LOG_LEVEL: "warn",
    PGKEEPER_POSTGRES_VERSIONS: "14,15,16,17,18",
  });
  try {
    FUZZ_SECRETS.forEach(name => create(secretManifest(ns, name)));
    const cluster = await clusterView(ns);
    await operator.start();
    if (args.replay !== undefined) return await replay(args, args.replay, ns, cluster);
    const modes: FuzzMode[] = [];
    for (const mode of args.modes) modes.push(await runMode(mode, args, ns, cluster));
    const { seed, cases, from, concurrency } = args;
    const parameters: FuzzParameters = { seed, cases, from, concurrency, modes: args.modes };
    saveResult("fuzz", start, parameters, { modes }, smoke);
  } finally {
    await stopOperator(operator);
    removeWebhooks();
    kubectl(["delete", "namespace", ns, "--wait=false"]);
  }
}

runMain(main);
