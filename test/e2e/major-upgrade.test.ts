/**
 * A major upgrade by raising spec.version (ADR 0041), under an acknowledging writer, with WAL
 * archiving into the local object store: a 3-instance Database on PostgreSQL 15 whose upgrade to
 * 17 is first refused by its checks (an extension 17 lacks: nothing stops, spec.version set back
 * cancels it), then fails with its pg_upgrade killed midway (15 serves again on its data),
 * then is done: the primary converted by pg_upgrade in a Job, the standbys cloned again, a backup
 * of 17, the old data deleted. Every version, row and replication state is read from PostgreSQL.
 */
import { database, operatorSuite } from "../integration/harness/fixtures";
import { create, get, kubectlOk, list, Obj } from "../integration/harness/kubectl";
import { Operator } from "../integration/harness/operator";
import { waitFor } from "../integration/harness/wait";
import { diagnosed } from "./diagnosis";
import { healthy } from "./healthy";
import { Load, podProcesses, signalEach, startLoadOn } from "./load";
import { missingAcknowledgedRows } from "./load/rows";
import { createStoreSecrets, localObjectStore, pgbackrestIn } from "./object-store";
import { appCredentials, psql, superuserAt } from "./psql";

const operator = new Operator("e2e-upgrade");
let ns = "";
operatorSuite(operator, "e2e-upgrade", created => (ns = created));

const DB = "up";

interface Upgrade {
  from: string;
  to: string;
  phase: string;
  message?: string;
  downtimeSeconds?: number;
  stoppedAt?: string;
  servingAt?: string;
  backup?: string;
}
type Status = {
  phase?: string;
  version?: string;
  currentPrimary?: string;
  upgrade?: Upgrade;
  instances?: { name: string; ready: boolean; role: string; streaming?: boolean }[];
  conditions?: { type: string; status: string; reason: string; message: string }[];
};
const status = (): Status => (get("database", ns, DB)?.status ?? {}) as Status;
const podsOf = (): Obj[] =>
  list("pod", ns, `pgkeeper.dev/database=${DB}`).filter(p =>
    /^up-\d+$/.test(p.metadata.name ?? ""),
  );
const pod = (name: string): Obj | undefined => get("pod", ns, name);
/** A query as the superuser on one instance, by its pod IP. */
const onInstance = (name: string, sql: string): string =>
  psql(superuserAt(ns, DB, pod(name)!), sql);
const setVersion = (version: string): void =>
  void kubectlOk([
    ...["patch", "database", DB, "-n", ns, "--type=merge", "-p"],
    JSON.stringify({ spec: { version } }),
  ]);
const phaseIs = (phase: string, timeoutMs: number): Promise<Upgrade> =>
  diagnosed(
    waitFor(
      `status.upgrade.phase ${phase}`,
      () => (status().upgrade?.phase === phase ? status().upgrade : undefined),
      { timeoutMs, intervalMs: 2000 },
    ),
    ns,
    DB,
    operator.logFile,
  );

describe("a major upgrade from PostgreSQL 15 to 17 under writes", () => {
  let load: Load | undefined;
  const theLoad = (): Load => {
    if (!load) throw new Error("no write load: the Database never came up");
    return load;
  };

  /** Every acknowledged row, counted inside PostgreSQL through -rw. */
  async function nothingLost(): Promise<void> {
    const ranges = theLoad().acknowledgedRanges();
    const creds = appCredentials(ns, DB);
    const check = await waitFor(
      "the rows through -rw",
      () => missingAcknowledgedRows(creds, "load", ranges),
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    console.log(`${check.acknowledged} acknowledged rows checked, ${check.missing} missing`);
    expect(check.acknowledged).toBeGreaterThan(0);
    expect(check.sample).toEqual([]);
    expect(check.missing).toBe(0);
  }

  /** Every instance answers with `major`, the standbys stream from the primary. */
  function runsMajor(major: string): void {
    const primary = status().currentPrimary!;
    for (const p of podsOf())
      expect(onInstance(p.metadata.name!, "show server_version_num").slice(0, 2)).toBe(major);
    expect(
      onInstance(primary, "select count(*) from pg_stat_replication where state = 'streaming'"),
    ).toBe("2");
  }

  beforeAll(async () => {
    createStoreSecrets(ns);
    create(
      database(ns, DB, {
        instances: 3,
        backup: { objectStore: localObjectStore(), archiveTimeoutSeconds: 5 },
      }),
    );
    await healthy(ns, DB, 3, operator.logFile, 420_000);
    await startLoadOn(ns, DB, started => (load = started));
  }, 600_000);

  afterAll(async () => {
    await load?.stop();
  });

  it("refuses an upgrade the checks find impossible, before anything stops; set back cancels", async () => {
    const primary = status().currentPrimary!;
    // adminpack is in 15's contrib and gone from 17.
    onInstance(primary, "create extension adminpack");
    const startedAt = (): Record<string, string> =>
      Object.fromEntries(
        podsOf().map(p => [
          p.metadata.name!,
          onInstance(p.metadata.name!, "select pg_postmaster_start_time()"),
        ]),
      );
    const before = startedAt();
    setVersion("17");
    const failed = await phaseIs("Failed", 600_000);
    console.log(`refused: ${failed.message}`);
    expect(failed.message).toContain("adminpack");
    expect(failed.message).toContain("nothing was stopped");
    expect(failed.stoppedAt).toBeUndefined();
    // Nothing stopped, as PostgreSQL tells it: every server runs since before the rise.
    expect(startedAt()).toEqual(before);
    expect(Object.keys(before)).toHaveLength(3);
    expect(get("job", ns, `${DB}-upgrade`)).toBeUndefined();
    runsMajor("15");
    expect(status().version).toBe("15");
    await nothingLost();
    // Back to the data's major: a fall the API admits only this once.
    setVersion("15");
    await phaseIs("Cancelled", 120_000);
    onInstance(status().currentPrimary!, "drop extension adminpack");
  }, 900_000);

  it("rolls back when pg_upgrade is killed midway: 15 serves again on the data as it was", async () => {
    const jobPods = (): Obj[] => list("pod", ns, `job-name=${DB}-upgrade`);
    const earlier = new Set(jobPods().map(p => p.metadata.uid));
    setVersion("17");
    const jobPodUid = await waitFor(
      "the new upgrade Job's pod",
      () => jobPods().find(p => !earlier.has(p.metadata.uid))?.metadata.uid,
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    // Caught while it copies (a few seconds here), from the node's side.
    const killed = await waitFor(
      "pg_upgrade running in the Job",
      () => {
        const found = podProcesses(jobPodUid, "pg_upgrade");
        signalEach(
          found.map(p => p.pid),
          "SIGKILL",
        );
        return found.length > 0 ? found.length : undefined;
      },
      { timeoutMs: 300_000, intervalMs: 50 },
    );
    expect(killed).toBeGreaterThan(0);
    const failed = await phaseIs("Failed", 300_000);
    console.log(`killed: ${failed.message}`);
    expect(failed.message).toContain(
      "pg_upgrade from PostgreSQL 15 to 17 failed, and PostgreSQL 15's data directory is as it was",
    );
    await healthy(ns, DB, 3, operator.logFile, 420_000);
    runsMajor("15");
    expect(status().version).toBe("15");
    await nothingLost();
    setVersion("15");
    await phaseIs("Cancelled", 120_000);
  }, 900_000);

  it("upgrades to 17: converted by pg_upgrade, the standbys cloned again, backed up, old data deleted", async () => {
    const t0 = Date.now();
    setVersion("17");
    const done = await phaseIs("Succeeded", 900_000);
    // The downtime as the writer saw it: from its last acknowledged write on 15 to its first on 17.
    const gap = theLoad().longestGap(t0, Date.now());
    console.log(
      `15 -> 17 in ${Math.round((Date.now() - t0) / 1000)} s; no acknowledged write for ${(gap / 1000).toFixed(1)} s; status.upgrade.downtimeSeconds ${done.downtimeSeconds} (stop to primary ready)`,
    );
    expect(done.downtimeSeconds).toBeGreaterThan(0);
    expect(status().version).toBe("17");
    expect(status().conditions?.find(c => c.type === "MajorUpgrade")).toMatchObject({
      status: "True",
      reason: "Succeeded",
    });
    await healthy(ns, DB, 3, operator.logFile, 420_000);
    runsMajor("17");
    await nothingLost();
    // The new major's backup completed; the repository holds both majors' histories.
    expect(get("backup", ns, done.backup!)?.status?.phase).toBe("Completed");
    const primary = status().currentPrimary!;
    const info = JSON.parse(pgbackrestIn(ns, primary, "info", "--output=json")) as {
      db: { version: string }[];
    }[];
    expect(info[0].db.map(d => d.version).sort()).toEqual(["15", "17"]);
    // The old data directory is gone from the primary's volume.
    const entries = kubectlOk([
      ...["exec", "-n", ns, primary, "-c", "postgres", "--", "ls", "/var/lib/postgresql/data"],
    ]);
    expect(entries).not.toContain("pre-upgrade");
    expect(
      list("job", ns, `pgkeeper.dev/database=${DB},app.kubernetes.io/component=upgrade`).map(
        j => j.metadata.name,
      ),
    ).toEqual([]);
  }, 1_200_000);
});
