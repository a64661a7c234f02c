/**
 * The instance entrypoint (entrypoint.sh, run for real) bringing a former primary back as a
 * standby of the instance promoted in its place, against real PostgreSQL servers. The former
 * primary wrote WAL after the promotion (it was cut off from the others, still accepting writes
 * that were never acknowledged in synchronous mode), so its history has diverged and only
 * pg_rewind makes it able to follow the new timeline.
 */
import { ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promote } from "../../capabilities/database/instance/instance-sql";
import { Cluster } from "./harness/cluster";
import { entrypointFor as harnessEntrypoint, waitForLog } from "./harness/entrypoint";
import { serverAccount } from "./harness/os";
import { PgServer } from "./harness/server";

jest.setTimeout(180_000);

let cluster: Cluster;
let oldPrimary: PgServer;
let newPrimary: PgServer;

beforeEach(async () => {
  cluster = new Cluster();
  oldPrimary = await cluster.primary("db-0");
  newPrimary = await cluster.standby(oldPrimary, "db-1");
});
afterEach(() => cluster.destroy());

/** How the old primary ended: stopped at once, or killed with its lock file left behind. */
const ENDINGS: [string, (s: PgServer) => Promise<void>][] = [
  ["an immediate shutdown", s => s.stop("immediate")],
  [
    // Its postmaster was PID 1 in its container; in the new container PID 1 is alive, a process
    // of the same user (the entrypoint's shell): here a sleep of the servers' account stands in.
    "SIGKILL, its lock file naming a live process of the same user",
    async s => {
      await s.killAll();
      const stand = spawn("sleep", ["600"], { ...serverAccount(), stdio: "ignore" });
      standIns.push(stand);
      const lock = path.join(s.dataDir, "postmaster.pid");
      const lines = readFileSync(lock, "utf8").split("\n");
      writeFileSync(lock, [String(stand.pid), ...lines.slice(1)].join("\n"));
    },
  ],
];
const standIns: ChildProcess[] = [];
afterAll(() => standIns.forEach(p => p.kill("SIGKILL")));

const entrypointFor = (server: PgServer, primary: PgServer, podName: string) =>
  harnessEntrypoint(cluster, server, primary, podName);

describe("entrypoint.sh: a former primary whose WAL went past the promotion", () => {
  it.each(ENDINGS)("after %s: rewinds onto the new timeline and streams", async (_, end) => {
    oldPrimary.sql("CREATE TABLE t (id int, wrote text)");
    oldPrimary.sql("INSERT INTO t SELECT g, 'both' FROM generate_series(1, 1000) g");
    await newPrimary.waitFor("SELECT count(*) FROM t", "1000");

    await promote(newPrimary.target, 30);
    // The condition that broke rejoins: right after a promotion, the new primary's control file
    // still names the old timeline (its first checkpoint is spread over minutes).
    expect(newPrimary.sql("SELECT timeline_id FROM pg_control_checkpoint()")).toBe("1");
    newPrimary.sql("INSERT INTO t VALUES (2001, 'new primary')");
    // The old primary, cut off, still accepts a write nobody else has: diverged history.
    oldPrimary.sql("INSERT INTO t SELECT g, 'old primary only' FROM generate_series(1001, 2000) g");
    await end(oldPrimary);

    await oldPrimary.start(120_000, entrypointFor(oldPrimary, newPrimary, "db-0"));

    await newPrimary.waitFor(
      "SELECT state FROM pg_stat_replication WHERE application_name = 'db-0'",
      "streaming",
      60_000,
    );
    expect(oldPrimary.sql("SELECT pg_is_in_recovery()")).toBe("t");
    expect(oldPrimary.sql("SELECT received_tli FROM pg_stat_wal_receiver")).toBe("2");
    await oldPrimary.waitFor("SELECT count(*) FROM t WHERE wrote = 'new primary'", "1");
    expect(oldPrimary.sql("SELECT count(*) FROM t WHERE wrote = 'old primary only'")).toBe("0");
    expect(oldPrimary.logTail(200)).toContain("Rewound onto the primary's timeline");
  });
});

describe("entrypoint.sh: a former primary waiting to rejoin while nobody was promoted", () => {
  it("starts as the primary again, with every row and no rewind, once the topology names it", async () => {
    oldPrimary.sql("CREATE TABLE t (id int)");
    oldPrimary.sql("INSERT INTO t SELECT g FROM generate_series(1, 1000) g");
    await newPrimary.waitFor("SELECT count(*) FROM t", "1000");
    await oldPrimary.stop("immediate");

    // A failover named db-1 and fenced db-0, then could not promote anyone: db-1 is still a
    // standby, so db-0's entrypoint waits for a writable primary that never comes.
    const launch = entrypointFor(oldPrimary, newPrimary, "db-0");
    const started = oldPrimary.start(120_000, launch);
    started.catch(() => undefined);
    await waitForLog(oldPrimary, "Waiting for the primary");
    // The operator cancels the failover: the topology names db-0 again.
    cluster.writeOwned(launch.topologyPrimaryFile, "db-0");
    await started;

    expect(oldPrimary.sql("SELECT pg_is_in_recovery()")).toBe("f");
    expect(oldPrimary.sql("SELECT count(*) FROM t")).toBe("1000");
    oldPrimary.sql("INSERT INTO t VALUES (1001)");
    const log = oldPrimary.logTail(200);
    expect(log).toContain("this instance is the primary again");
    expect(log).not.toContain("Rewound");
  });
});
