/**
 * A continuous write load and a split-brain watch, run as a child process so the test's
 * synchronous kubectl calls never pause it (e2e HA tests and bench/failover):
 *
 * - writers (`writers` of them, one connection each): insert numbered rows through `<db>-rw`, one
 *   transaction each, and append every acknowledged id with its time and the answering server's
 *   address to `<out>/acks`. Writer k numbers its rows from k × WRITER_ID_SPACE + 1, so each
 *   writer's acknowledged ids form a few long ranges. Client-side timeouts only: a server-side
 *   statement_timeout would cancel a synchronous-replication wait and report the commit as done.
 * - watch: every WATCH_MS asks each instance pod (by IP, as the superuser, on one kept-open
 *   connection per pod) whether it is in recovery, and appends rounds where more than one instance accepted writes to
 *   `<out>/violations`; `<out>/primaries` logs every change of the writable set; `<out>/unsure`
 *   the windows in which more than one instance was writable or did not answer (unknown).
 *
 * Usage: node -r ts-node/register/transpile-only load.ts <config.json>; stops on SIGTERM.
 */
import { execFile } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { openClient } from "./pg-client";
import { WRITER_ID_SPACE } from "./ack-log";
import { stopWhenOrphaned } from "./orphan-guard";

/** TLS of a node-postgres connection (ADR 0017): what to verify, and a client certificate. */
export interface PgTls {
  ca: string;
  servername?: string;
  cert?: string;
  key?: string;
}

export interface LoadConfig {
  out: string;
  app: {
    host: string;
    port: number;
    user: string;
    password: string;
    database: string;
    ssl?: PgTls;
  };
  superuserPassword: string;
  /** The operator's client certificate and the server CA: superuser logins need both. */
  superuserTls?: PgTls;
  kubectl: string;
  kubeconfig: string;
  namespace: string;
  database: string;
  table: string;
  /** Concurrent writers (CI_STRESS runs more, to exercise the limits on purpose). */
  writers: number;
}

const WATCH_MS = 200;
const TIMEOUT_MS = 2000;
let stopping = false;

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

async function writer(cfg: LoadConfig, index: number): Promise<void> {
  const acks = join(cfg.out, "acks");
  const errors = join(cfg.out, "errors");
  let client: Client | undefined;
  let id = index * WRITER_ID_SPACE;
  while (!stopping) {
    id++;
    try {
      if (!client) {
        client = await openClient(cfg.app, TIMEOUT_MS);
      }
      const r = await client.query<{ addr: string }>(
        `insert into ${cfg.table} (id) values ($1) returning host(inet_server_addr()) as addr`,
        [id],
      );
      appendFileSync(acks, `${id} ${Date.now()} ${r.rows[0].addr}\n`);
    } catch (err) {
      appendFileSync(errors, `${Date.now()} ${id} ${(err as Error).message}\n`);
      const dead = client;
      client = undefined;
      void dead?.end().catch(() => undefined);
      await sleep(100);
    }
  }
  await client?.end().catch(() => undefined);
}

interface PodAddr {
  name: string;
  ip: string;
}

function pods(cfg: LoadConfig): Promise<PodAddr[]> {
  return new Promise(resolve =>
    execFile(
      cfg.kubectl,
      [
        "--kubeconfig",
        cfg.kubeconfig,
        "get",
        "pods",
        "-n",
        cfg.namespace,
        "-l",
        `pgkeeper.dev/database=${cfg.database}`,
        "-o",
        "json",
      ],
      { timeout: 10_000 },
      (err, stdout) => {
        if (err) return resolve([]);
        const items = (
          JSON.parse(stdout) as {
            items: { metadata: { name: string }; status: { podIP?: string } }[];
          }
        ).items;
        resolve(
          items
            .filter(p => p.status.podIP)
            .map(p => ({ name: p.metadata.name, ip: p.status.podIP! })),
        );
      },
    ),
  );
}

/** One open connection per pod (by name and IP): polling must not be a connection storm. */
const sessions = new Map<string, { ip: string; client: Client }>();

async function session(cfg: LoadConfig, pod: PodAddr): Promise<Client> {
  const open = sessions.get(pod.name);
  if (open && open.ip === pod.ip) return open.client;
  if (open) void open.client.end().catch(() => undefined);
  const client = new Client({
    host: pod.ip,
    port: 5432,
    user: "postgres",
    password: cfg.superuserPassword,
    database: "postgres",
    ...(cfg.superuserTls
      ? {
          ssl: {
            ...cfg.superuserTls,
            servername: `${pod.name}.${cfg.database}-hl.${cfg.namespace}.svc`,
          },
        }
      : {}),
    connectionTimeoutMillis: 1000,
    query_timeout: 1000,
  });
  client.on("error", () => undefined);
  sessions.set(pod.name, { ip: pod.ip, client });
  try {
    await client.connect();
  } catch (err) {
    sessions.delete(pod.name);
    throw err;
  }
  return client;
}

/**
 * Whether the instance accepts writes, as it answers; "unknown" when it does not answer (cut
 * off, frozen, down): an isolated old primary may still be writable, so it never counts as not.
 */
async function writable(cfg: LoadConfig, pod: PodAddr): Promise<"yes" | "no" | "unknown"> {
  try {
    const client = await session(cfg, pod);
    const r = await client.query<{ w: boolean }>("select not pg_is_in_recovery() as w");
    return r.rows[0].w ? "yes" : "no";
  } catch {
    const broken = sessions.get(pod.name);
    sessions.delete(pod.name);
    void broken?.client.end().catch(() => undefined);
    return "unknown";
  }
}

async function watch(cfg: LoadConfig): Promise<void> {
  let addrs: PodAddr[] = [];
  let refreshed = 0;
  let last = "";
  let unsureSince: number | undefined;
  while (!stopping) {
    if (Date.now() - refreshed > 2000) {
      addrs = await pods(cfg);
      refreshed = Date.now();
    }
    const answers = await Promise.all(
      addrs.map(async p => ({ name: p.name, writable: await writable(cfg, p) })),
    );
    const now = Date.now();
    const primaries = answers
      .filter(a => a.writable === "yes")
      .map(a => a.name)
      .sort();
    const line = primaries.join(",");
    if (line !== last) {
      appendFileSync(join(cfg.out, "primaries"), `${now} ${line}\n`);
      last = line;
    }
    if (primaries.length > 1) appendFileSync(join(cfg.out, "violations"), `${now} ${line}\n`);
    // Rounds in which more than one instance is writable or cannot say it is not: the windows in
    // which a second writer cannot be ruled out, from their first round to the first round after.
    const unsure = answers.filter(a => a.writable !== "no").length > 1;
    if (unsure && unsureSince === undefined) unsureSince = now;
    if (!unsure && unsureSince !== undefined) {
      appendFileSync(join(cfg.out, "unsure"), `${unsureSince} ${now}\n`);
      unsureSince = undefined;
    }
    await sleep(WATCH_MS);
  }
  if (unsureSince !== undefined)
    appendFileSync(join(cfg.out, "unsure"), `${unsureSince} ${Date.now()}\n`);
  for (const { client } of sessions.values()) void client.end().catch(() => undefined);
}

if (require.main === module) {
  const cfg = JSON.parse(readFileSync(process.argv[2], "utf8")) as LoadConfig;
  for (const f of ["acks", "errors", "violations", "primaries", "unsure"])
    writeFileSync(join(cfg.out, f), "");
  process.on("SIGTERM", () => (stopping = true));
  stopWhenOrphaned(() => (stopping = true));
  const writers = Array.from({ length: Math.max(1, cfg.writers) }, (_, k) => writer(cfg, k));
  void Promise.all([...writers, watch(cfg)]).then(() => process.exit(0));
}
