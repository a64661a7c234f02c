/**
 * Test-side handle of the load process (load.ts) and fault injection on the node's processes.
 * Acknowledgements are read incrementally (ack-log.ts); rows are checked inside PostgreSQL
 * (rows.ts): nothing here grows with the machine's speed but two small typed arrays.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { env } from "../../integration/harness/env";
import { get } from "../../integration/harness/kubectl";
import { Ack, AckLog, ackAfterOutage } from "./ack-log";
import { startChild, stopChild } from "./child";
import type { LoadConfig } from "./load";
import { waitFor } from "../../integration/harness/wait";
import { appCredentials, psql } from "../psql";

export type { Ack };
export { podProcesses, postgresPids, postmasterPid, signalEach } from "./processes";

const decode = (b64: string | undefined): string => Buffer.from(b64 ?? "", "base64").toString();

/** Writers in the load: 1, or PGKEEPER_E2E_WRITERS; CI_STRESS=1 runs 8 to push the limits. */
export const loadWriters = (e: Record<string, string | undefined> = process.env): number =>
  Number(e.PGKEEPER_E2E_WRITERS) > 0 ? Number(e.PGKEEPER_E2E_WRITERS) : e.CI_STRESS === "1" ? 8 : 1;

/** The application's login through `<db>-rw` (its Service's ClusterIP), over verified TLS. */
export function appConnection(namespace: string, database: string): LoadConfig["app"] {
  const app = get("secret", namespace, `${database}-app`)?.data ?? {};
  const svc = get("service", namespace, `${database}-rw`);
  return {
    host: String((svc?.spec as { clusterIP: string }).clusterIP),
    port: 5432,
    user: decode(app.username),
    password: decode(app.password),
    database: decode(app.dbname),
    ssl: { ca: decode(app["ca.crt"]), servername: decode(app.host) },
  };
}

export class Load {
  private child?: ChildProcess;
  readonly out = mkdtempSync(join(tmpdir(), "pgkeeper-load-"));
  private readonly log = new AckLog(join(this.out, "acks"));

  constructor(
    private readonly namespace: string,
    private readonly database: string,
    private readonly table = "load",
  ) {}

  /** Starts writing through `<db>-rw` (the table must exist) and watching the instances. */
  start(): void {
    const superuser = get("secret", this.namespace, `${this.database}-superuser`)?.data ?? {};
    const ca = get("secret", this.namespace, `${this.database}-ca`)?.data ?? {};
    const cfg: LoadConfig = {
      out: this.out,
      app: appConnection(this.namespace, this.database),
      superuserPassword: decode(superuser.password),
      superuserTls: {
        ca: decode(superuser["ca.crt"]),
        cert: decode(ca["operator.crt"]),
        key: decode(ca["operator.key"]),
      },
      kubectl: env.kubectl,
      kubeconfig: env.kubeconfig,
      namespace: this.namespace,
      database: this.database,
      table: this.table,
      writers: loadWriters(),
    };
    this.child = startChild(join(__dirname, "load.ts"), this.out, cfg);
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }

  private lines(file: string): string[] {
    try {
      return readFileSync(join(this.out, file), "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  }

  /** How many writes were acknowledged so far. */
  acknowledged(): number {
    return this.log.count;
  }

  /** Every acknowledged id, as inclusive ranges (see rows.ts). */
  acknowledgedRanges(): [number, number][] {
    return this.log.ranges();
  }

  /** The first write acknowledged at or after `t` (ms), optionally by a server other than `not`. */
  firstAckAfter(t: number, not?: string): Ack | undefined {
    return this.log.firstAfter(t, not);
  }

  /**
   * The write acknowledged once writes failed after `t0`: the end of the outage the writer saw
   * (undefined while it lasts; the first ack after t0 when no write failed at all).
   */
  recoveredAfter(t0: number): Ack | undefined {
    return ackAfterOutage(this.log, this.errorTimes(), t0);
  }

  /** The longest time (ms) without an acknowledged write between `from` and `to`. */
  longestGap(from: number, to: number): number {
    return this.log.longestGap(from, to);
  }

  violations(): string[] {
    return this.lines("violations");
  }

  /**
   * The longest window (ms) that overlaps [from, now] in which more than one instance was
   * writable or did not answer: how long a second writer could not be ruled out. An
   * unanswering instance (cut off, frozen) is unknown, never counted as not writable.
   */
  longestUnsure(from: number): number {
    return this.lines("unsure")
      .map(l => l.split(" ").map(Number))
      .filter(([, end]) => end >= from)
      .reduce((max, [start, end]) => Math.max(max, end - Math.max(start, from)), 0);
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
 * A `load` table made through `<db>-rw` and a writer on it, handed to `started` as soon as it
 * runs (so the suite stops it even if what follows fails); resolves once writes are acknowledged.
 */
export async function startLoadOn(
  namespace: string,
  database: string,
  started: (load: Load) => void,
): Promise<Load> {
  const creds = appCredentials(namespace, database);
  await waitFor("SQL through -rw", () => psql(creds, "select 1") === "1", { timeoutMs: 60_000 });
  psql(creds, "create table load (id bigint primary key, at timestamptz default now())");
  const load = new Load(namespace, database);
  load.start();
  started(load);
  await waitFor("the first acknowledged writes", () => load.acknowledged() > 20, {
    timeoutMs: 60_000,
  });
  return load;
}
