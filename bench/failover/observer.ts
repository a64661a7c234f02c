/**
 * Watches one Database's way to its primary while a failover happens, every POLL_MS: the
 * operator's operation (status), which instances PostgreSQL says accept writes, the pods labelled
 * primary, the ready endpoints of `<db>-rw` (EndpointSlices) and where kube-proxy's iptables
 * rules send `<db>-rw`'s connections. Each poll is one Observation (timeline.ts); polls never
 * overlap, so a slow answer delays the next one instead of piling up, and an instance that does
 * not answer within SQL_TIMEOUT_MS counts as not writable for that poll.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Client } from "pg";
import { within } from "../../capabilities/database/lib/within";
import { Credentials, pgConfig, superuserAt } from "../../test/e2e/psql";
import { LABEL_DATABASE, LABEL_ROLE, ROLE_PRIMARY } from "../../capabilities/database/api/names";
import { apiClient, Requester } from "../lib/apiclient";
import type { Observation } from "./timeline";

const POLL_MS = 100;
/** A question's patience; opening a session (TLS, SCRAM) takes longer, and happens once. */
const SQL_TIMEOUT_MS = 300;
const CONNECT_TIMEOUT_MS = 2000;
const run = promisify(execFile);
const noAnswer = (ms: number) => () => new Error(`no answer in ${ms} ms`);

interface Pod {
  metadata: { name: string; labels?: Record<string, string> };
  status?: { podIP?: string };
}
interface PodList {
  items: Pod[];
}
interface SliceList {
  items: { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }[];
}

/**
 * Where kube-proxy (iptables mode) sends `<ns>/<service>`: the targets named in the comments of
 * its service chain's jumps (`"ns/svc:port -> 10.244.0.7:5432"`), as `iptables-save` prints them.
 */
export function proxyTargetsOf(iptablesSave: string, ns: string, service: string): string[] {
  const rule = new RegExp(
    `--comment "${ns}/${service}(?::[^ "]*)? -> (\\d+\\.\\d+\\.\\d+\\.\\d+):`,
  );
  return iptablesSave
    .split("\n")
    .filter(line => line.startsWith("-A KUBE-SVC-"))
    .map(line => rule.exec(line)?.[1])
    .filter((ip): ip is string => ip !== undefined)
    .sort();
}

const json = async <T>(api: Requester, path: string): Promise<T> => {
  const r = await api("GET", path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body.slice(0, 200)}`);
  return JSON.parse(r.body) as T;
};

/**
 * One superuser session per instance address, opened again after any failure. Each poll asks
 * every instance not still busy answering the previous question, and reads the latest answers:
 * a hung instance never slows the polls down, and counts as not writable once its question has
 * gone unanswered for SQL_TIMEOUT_MS.
 */
class Sessions {
  private readonly open = new Map<string, Client>();
  private readonly asking = new Set<string>();
  private readonly latest = new Map<string, boolean>();

  /** Why questions failed (the first few), for the run's log. */
  readonly errors: string[] = [];

  /**
   * The superuser's credentials, read once: reading them per connection (kubectl, synchronous)
   * stalled this process for longer than the questions' own timeout.
   */
  private readonly credentials: Credentials;

  constructor(
    private readonly ns: string,
    private readonly db: string,
  ) {
    this.credentials = superuserAt(ns, db, { metadata: { name: "" }, status: { podIP: "-" } });
  }

  /** The superuser's credentials for one instance: its address and the name its certificate has. */
  private credentialsFor(pod: Pod): Credentials {
    const tls = this.credentials.tls!;
    return {
      ...this.credentials,
      host: pod.status!.podIP!,
      tls: { ...tls, servername: `${pod.metadata.name}.${this.db}-hl.${this.ns}.svc` },
    };
  }

  /** The addresses among `pods` whose PostgreSQL last said it is not in recovery. */
  writable(pods: Pod[]): string[] {
    const ips = pods.map(p => p.status?.podIP).filter((ip): ip is string => Boolean(ip));
    for (const pod of pods) {
      const ip = pod.status?.podIP;
      if (ip && !this.asking.has(ip)) void this.ask(pod, ip);
    }
    return ips.filter(ip => this.latest.get(ip) === true).sort();
  }

  private async ask(pod: Pod, ip: string): Promise<void> {
    this.asking.add(ip);
    try {
      let client = this.open.get(ip);
      if (!client) {
        client = new Client(pgConfig(this.credentialsFor(pod)));
        client.on("error", () => undefined);
        this.open.set(ip, client);
        await within(client.connect(), CONNECT_TIMEOUT_MS, noAnswer(CONNECT_TIMEOUT_MS));
      }
      const r = await within(
        client.query("select pg_is_in_recovery() as r"),
        SQL_TIMEOUT_MS,
        noAnswer(SQL_TIMEOUT_MS),
      );
      this.latest.set(ip, !(r.rows[0] as { r: boolean }).r);
    } catch (err) {
      if (this.errors.length < 5) this.errors.push(`${ip}: ${(err as Error).message}`);
      this.latest.delete(ip);
      this.close(ip);
    } finally {
      this.asking.delete(ip);
    }
  }

  private close(ip: string): void {
    const client = this.open.get(ip);
    this.open.delete(ip);
    void client?.end().catch(() => undefined);
  }

  closeAll(): void {
    [...this.open.keys()].forEach(ip => this.close(ip));
  }
}

export class Observer {
  private readonly api = apiClient(4, undefined, { timeoutMs: 5000 });
  private readonly sessions: Sessions;
  private readonly seen: Observation[] = [];
  private running = false;
  private loop?: Promise<void>;
  private readonly errors: string[] = [];

  constructor(
    private readonly ns: string,
    private readonly db: string,
  ) {
    this.sessions = new Sessions(ns, db);
  }

  start(): void {
    this.running = true;
    this.seen.length = 0;
    this.loop = this.pollUntilStopped();
  }

  /** Stops polling and returns what was seen since start(), and why polls or questions failed. */
  async stop(): Promise<{ observations: Observation[]; errors: string[] }> {
    this.running = false;
    await this.loop;
    this.sessions.closeAll();
    return { observations: [...this.seen], errors: [...this.errors, ...this.sessions.errors] };
  }

  private async pollUntilStopped(): Promise<void> {
    while (this.running) {
      const started = Date.now();
      try {
        this.seen.push(await this.observe());
      } catch (err) {
        // A missed poll widens the phase's uncertainty; it does not end the failover's watch.
        if (this.errors.length < 20) this.errors.push((err as Error).message);
      }
      await new Promise(r => setTimeout(r, Math.max(0, POLL_MS - (Date.now() - started))));
    }
  }

  private async observe(): Promise<Observation> {
    const { ns, db } = this;
    const [database, pods, slices, rules] = await Promise.all([
      json<{ status?: { operation?: Observation["operation"] } }>(
        this.api,
        `/apis/pgkeeper.dev/v1alpha1/namespaces/${ns}/databases/${db}`,
      ),
      json<PodList>(
        this.api,
        `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(`${LABEL_DATABASE}=${db}`)}`,
      ),
      json<SliceList>(
        this.api,
        `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${db}-rw`)}`,
      ),
      run("iptables-save", ["-t", "nat"], { maxBuffer: 64 * 1024 * 1024 }),
    ]);
    const writable = this.sessions.writable(pods.items);
    return {
      at: Date.now(),
      operation: database.status?.operation,
      writable,
      primaryLabelled: pods.items
        .filter(p => p.metadata.labels?.[LABEL_ROLE] === ROLE_PRIMARY)
        .map(p => p.status?.podIP ?? "")
        .sort(),
      rwEndpoints: slices.items
        .flatMap(s => s.endpoints ?? [])
        .filter(e => e.conditions?.ready !== false)
        .flatMap(e => e.addresses)
        .sort(),
      proxyTargets: proxyTargetsOf(rules.stdout, ns, `${db}-rw`),
    };
  }
}
