/**
 * The frame of the HA suites (test/e2e/ha-*.test.ts): a 3-instance Database in quorum mode under
 * a continuous write load through `<db>-rw`, its own operator and namespace per suite, and the
 * checks every fault ends with: a new (or the same) primary, writes acknowledged again, every
 * instance streaming, no acknowledged row lost, never two writable instances, each fault a row of
 * the suite's fault matrix. Each suite starts from a Database that is whole again (beforeEach),
 * so one failing test does not take the others with it. The operator runs where the suite says:
 * on the host (`pepr dev`, the default) or in the cluster as users install it.
 */
import { POSTGRES_CONTAINER } from "../../../capabilities/database/specs/layout";
import { env } from "../../integration/harness/env";
import { database, operatorSuite } from "../../integration/harness/fixtures";
import { Obj, create, get, kubectlOk, list } from "../../integration/harness/kubectl";
import { Operator } from "../../integration/harness/operator";
import { waitFor } from "../../integration/harness/wait";
import { type OperatorLog, diagnosed } from "../diagnosis";
import { FaultMatrix } from "../fault-matrix";
import { healthy as waitHealthy } from "../healthy";
import { Load, loadWriters, startLoadOn } from "../load";
import { missingAcknowledgedRows } from "../load/rows";
import { appCredentials, psql, superuserAt } from "../psql";

export const DB = "ha";

export interface InstanceStatus {
  name: string;
  role: string;
  ready: boolean;
  streaming?: boolean;
  timeline?: number;
  image?: string;
}
export interface Status {
  phase?: string;
  currentPrimary?: string;
  instances?: InstanceStatus[];
  pendingRestart?: string[];
  lastFailover?: { from: string; to: string; reason?: string; durationSeconds: number };
  restart?: { request: string; phase: string };
}

export interface SettleOptions {
  firstWriteAt?: number;
  instances?: number;
  /** A second primary the test made itself, tolerated for `withinMs` after the fault. */
  injected?: { name: string; withinMs: number };
}

/** Where a suite's operator runs: the hooks that give it a namespace and run it, and its log. */
export interface OperatorPlacement {
  register(prefix: string, onNamespace: (ns: string) => void): void;
  readonly log: OperatorLog;
}

/** The operator as `pepr dev` on the host, started and stopped around the suite. */
export const onTheHost = (operator: Operator): OperatorPlacement => ({
  register: (prefix, onNamespace) => operatorSuite(operator, prefix, onNamespace),
  log: operator.logFile,
});

/** What a suite's tests use: the Database, its pods, the load, and the checks. */
export interface HaSuite {
  readonly ns: string;
  readonly load: Load;
  /** The operator's log, for a diagnosis. */
  readonly operatorLog: OperatorLog;
  status(name?: string): Status;
  pod(name: string): Obj | undefined;
  podIp(name: string): string;
  podsOf(name?: string): Obj[];
  healthy(name: string, instances: number, timeoutMs?: number): Promise<Status>;
  newPrimaryInsteadOf(oldPrimary: string): Promise<Status>;
  primaryOn(ordinal: number): Promise<void>;
  /** Requests a switchover to `to` and waits for it; a timeout prints the diagnosis. */
  switchOverTo(to: string): Promise<void>;
  expectRecovery(fault: string, oldPrimary: string, oldIp: string, t0: number): Promise<void>;
  settle(fault: string, t0: number, options?: SettleOptions): Promise<void>;
  /**
   * Notes the pods, runs `begin` (what starts the rollout), then samples the pods every 500 ms
   * until they are all ready again and `done()` (called only then, so it may ask PostgreSQL): how
   * many instances were down at most at once, and the order in which pods were replaced.
   */
  rollout(
    what: string,
    begin: () => void,
    done: () => boolean,
    timeoutMs?: number,
  ): Promise<{ maxDown: number; restartedOrder: string[] }>;
  setting(p: Obj, name: string): string;
  postmasterStart(p: Obj): string;
}

export const isReady = (p: Obj): boolean =>
  ((p.status?.conditions ?? []) as { type: string; status: string }[]).some(
    c => c.type === "Ready" && c.status === "True",
  );
/**
 * The postgres container's restarts, by name: the kubelet lists a pod's containers by name, so
 * the first is the metrics sidecar (run 26 waited on its count for a postgres restart).
 */
export const restartCount = (p: Obj): number =>
  ((p.status?.containerStatuses ?? []) as { name: string; restartCount: number }[]).find(
    c => c.name === POSTGRES_CONTAINER,
  )?.restartCount ?? -1;

/** Registers the suite's frame (operator, namespace, Database, load) and returns its handle. */
export function quorumDatabaseUnderLoad(
  suite: string,
  placement: OperatorPlacement = onTheHost(new Operator(`e2e-${suite}`)),
): HaSuite {
  let ns = "";
  placement.register(`e2e-${suite}`, created => (ns = created));
  let load: Load | undefined;
  const matrix = new FaultMatrix();
  /** Two-writable rounds already counted in earlier rows. */
  let violationsSeen = 0;

  const status = (name = DB): Status => (get("database", ns, name)?.status ?? {}) as Status;
  const pod = (name: string): Obj | undefined => get("pod", ns, name);
  const podIp = (name: string): string =>
    String((pod(name)?.status as { podIP?: string } | undefined)?.podIP);
  const podsOf = (name = DB): Obj[] => list("pod", ns, `pgkeeper.dev/database=${name}`);
  const healthy = (name: string, instances: number, timeoutMs?: number): Promise<Status> =>
    waitHealthy<Status>(ns, name, instances, placement.log, timeoutMs);
  const theLoad = (): Load => {
    if (!load) throw new Error("no write load: the suite's Database never came up");
    return load;
  };

  beforeAll(async () => {
    create(
      database(ns, DB, {
        instances: 3,
        postgresql: { synchronous: { mode: "quorum", number: 1 } },
      }),
    );
    await healthy(DB, 3, 420_000);
    await startLoadOn(ns, DB, started => (load = started));
  }, 600_000);

  // Whatever the test before did, the next one starts from a whole Database (or says why not).
  beforeEach(async () => {
    if (load) await healthy(DB, status().instances?.length === 2 ? 2 : 3);
  }, 360_000);

  afterAll(async () => {
    await load?.stop();
    matrix.report(env.logDir, loadWriters(), suite);
  });

  const newPrimaryInsteadOf = (oldPrimary: string): Promise<Status> =>
    diagnosed(
      waitFor(
        "a new primary",
        () => {
          const now = status();
          return now.currentPrimary && now.currentPrimary !== oldPrimary ? now : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      ),
      ns,
      DB,
      placement.log,
    );

  /** Requests a switchover to `to` and waits for it (or prints why it did not happen). */
  async function switchOverTo(to: string): Promise<void> {
    const from = status().currentPrimary;
    kubectlOk(["annotate", "database", DB, "-n", ns, `pgkeeper.dev/switchover-to=${to}`]);
    await diagnosed(
      waitFor(`the switchover ${from} -> ${to}`, () => status().currentPrimary === to, {
        timeoutMs: 120_000,
      }),
      ns,
      DB,
      placement.log,
    );
  }

  /** Makes the instance of `ordinal` the primary (a switchover) unless it already is. */
  async function primaryOn(ordinal: number): Promise<void> {
    const name = `${DB}-${ordinal}`;
    if (status().currentPrimary === name) return;
    await switchOverTo(name);
    await healthy(DB, 3);
  }

  /** Every acknowledged row counted inside PostgreSQL (see load/rows.ts). */
  async function rowsCheck(): Promise<Awaited<ReturnType<typeof missingAcknowledgedRows>>> {
    const ranges = theLoad().acknowledgedRanges();
    const creds = appCredentials(ns, DB);
    // Through -rw, which may still be moving to the new primary: retry until it answers.
    const check = await waitFor(
      "the rows through -rw",
      () => missingAcknowledgedRows(creds, "load", ranges),
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    console.log(`${check.acknowledged} acknowledged rows checked, ${check.missing} missing`);
    return check;
  }

  /**
   * After a fault at `t0`: every instance ready and every replica streaming, then the fault
   * matrix's row (taken before the checks, so a failing row is in the table too), then the checks:
   * never two writable instances (but for `injected`), no acknowledged row lost.
   */
  async function settle(fault: string, t0: number, options: SettleOptions = {}): Promise<void> {
    const { firstWriteAt, instances = 3, injected } = options;
    await healthy(DB, instances);
    const allStreamingMs = Date.now() - t0;
    const check = await rowsCheck();
    const violations = theLoad().violations();
    const firstWrite = firstWriteAt ?? theLoad().recoveredAfter(t0)?.at;
    matrix.add({
      fault,
      firstWriteMs: firstWrite === undefined ? undefined : firstWrite - t0,
      longestGapMs: theLoad().longestGap(t0, Date.now()),
      acknowledged: check.acknowledged,
      lost: check.missing,
      twoWritable: violations.length - violationsSeen,
      unsureMs: theLoad().longestUnsure(t0),
      allStreamingMs,
    });
    const fresh = violations.slice(violationsSeen);
    violationsSeen = violations.length;
    const tolerated = (v: string): boolean =>
      !!injected && v.includes(injected.name) && Number(v.split(" ")[0]) - t0 <= injected.withinMs;
    expect(fresh.filter(v => !tolerated(v))).toEqual([]);
    expect(check.acknowledged).toBeGreaterThan(0);
    expect(check.sample).toEqual([]);
    expect(check.missing).toBe(0);
  }

  /** After a fault at `t0`: a new primary, writes acknowledged again, nothing lost, rejoin. */
  async function expectRecovery(
    fault: string,
    oldPrimary: string,
    oldIp: string,
    t0: number,
  ): Promise<void> {
    const s = await newPrimaryInsteadOf(oldPrimary);
    const ack = await waitFor(
      "a write acknowledged after the fault",
      () => theLoad().firstAckAfter(t0, oldIp),
      { timeoutMs: 60_000 },
    );
    console.log(
      `failover ${oldPrimary} -> ${s.currentPrimary}: first acknowledged write ${ack.at - t0} ms after the fault`,
    );
    await settle(fault, t0, { firstWriteAt: ack.at });
    const back = status().instances?.find(i => i.name === oldPrimary);
    expect(back).toMatchObject({ role: "replica", ready: true, streaming: true });
  }

  async function rollout(
    what: string,
    begin: () => void,
    done: () => boolean,
    timeoutMs = 480_000,
  ): Promise<{ maxDown: number; restartedOrder: string[] }> {
    const starts = new Map(podsOf().map(p => [p.metadata.name, p.metadata.uid]));
    begin();
    let maxDown = 0;
    const restartedOrder: string[] = [];
    await diagnosed(
      waitFor(
        what,
        () => {
          const pods = podsOf();
          const down = pods.filter(p => !isReady(p)).length + (starts.size - pods.length);
          maxDown = Math.max(maxDown, down);
          for (const p of pods)
            if (
              starts.get(p.metadata.name) !== p.metadata.uid &&
              !restartedOrder.includes(p.metadata.name)
            )
              restartedOrder.push(p.metadata.name);
          // `done` (maybe SQL) only once everything looks ready: the sampling must stay light.
          return pods.length === starts.size && pods.every(isReady) && done();
        },
        { timeoutMs, intervalMs: 500 },
      ),
      ns,
      DB,
      placement.log,
    );
    return { maxDown, restartedOrder };
  }

  return {
    get ns() {
      return ns;
    },
    get load() {
      return theLoad();
    },
    operatorLog: placement.log,
    status,
    pod,
    podIp,
    podsOf,
    healthy,
    newPrimaryInsteadOf,
    primaryOn,
    switchOverTo,
    expectRecovery,
    settle,
    rollout,
    setting: (p, name) => psql(superuserAt(ns, DB, p), `select current_setting('${name}')`),
    postmasterStart: p => psql(superuserAt(ns, DB, p), "select pg_postmaster_start_time()"),
  };
}
