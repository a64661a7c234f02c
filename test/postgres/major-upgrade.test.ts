/**
 * A major upgrade's steps (upgrade.sh, ADR 0041) on a primary's volume, with pgkeeper's real
 * images of PostgreSQL 15, 17 and 18: the old image exports its programs, the new one checks and
 * runs pg_upgrade beside the old data directory. The old data is never lost: a failed check stops
 * nothing, a pg_upgrade killed midway or a container killed midway leaves PostgreSQL 15's data
 * directory as it was (or finishes on the next run), and a rollback puts it back. Every row is
 * counted by the server of the major that holds it.
 */
import { ChildProcess } from "node:child_process";
import { readFileSync, readdirSync, renameSync, rmSync } from "node:fs";
import { ObjectStore } from "./harness/object-store";
import { UpgradePod } from "./harness/upgrade-pod";
import { PgServer } from "./harness/server";

jest.setTimeout(300_000);

const ROWS = 5000;
const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

/** Polls `ready` every 20 ms (the phases being caught last about a second). */
async function until(what: string, ready: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${what}: not seen in ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** PIDs of `program` processes whose command line mentions `marker`. */
function processesOf(program: string, marker: string): number[] {
  return readdirSync("/proc")
    .filter(entry => /^\d+$/.test(entry))
    .filter(pid => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        return argv[0].endsWith(`/${program}`) && argv.some((a: string) => a.includes(marker));
      } catch {
        return false;
      }
    })
    .map(Number);
}

const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise(resolve =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", code => resolve(code)),
  );

/** The rows and the version, read from a server of `major` on the pod's data directory. */
async function readBack(
  pod: UpgradePod,
  major: string,
): Promise<{ version: string; rows: string }> {
  const server: PgServer = await pod.server(major);
  try {
    return {
      version: server.sql("SHOW server_version"),
      rows: server.sql("SELECT count(*) FROM acknowledged"),
    };
  } finally {
    await server.stop("fast");
  }
}

describe("a major upgrade on the primary's volume", () => {
  let pod: UpgradePod;
  beforeAll(() => (pod = new UpgradePod()));
  afterAll(() => pod?.destroy());

  it("refuses, while PostgreSQL 15 runs on, an extension PostgreSQL 17's image lacks", async () => {
    pod.initdb("15");
    const server = await pod.server("15");
    try {
      server.sql(`CREATE TABLE acknowledged AS SELECT g AS id FROM generate_series(1, ${ROWS}) g`);
      // adminpack left PostgreSQL in 17.
      server.sql("CREATE EXTENSION adminpack");
      expect(pod.script("15", "export-runtime").status).toBe(0);

      const refused = pod.script("17", "check");
      expect(refused.status).toBe(1);
      expect(refused.message).toMatch(/^The upgrade from PostgreSQL 15 to 17 cannot run:/);
      expect(refused.message).toContain(
        "Extensions installed here are not in PostgreSQL 17's image: adminpack (in database postgres).",
      );
      expect(refused.message).toMatch(/pg_upgrade --check failed: .*loadable libraries/);
      expect(refused.message).toContain("adminpack");
      // Nothing stopped, nothing written beside the data.
      expect(server.sql("SELECT count(*) FROM acknowledged")).toBe(String(ROWS));
      expect(pod.volume()).toEqual(["pgdata"]);

      server.sql("DROP EXTENSION adminpack");
      const passed = pod.script("17", "check");
      expect(passed).toMatchObject({
        status: 0,
        message: "The upgrade from PostgreSQL 15 to 17 can run.",
      });
      expect(pod.volume()).toEqual(["pgdata"]);

      // Bookworm's 15.20 keeps attribute versions too (pg_attver), which forky's 18.6 refuses.
      const to18 = pod.script("18", "check");
      expect(to18.status).toBe(1);
      expect(to18.message).toMatch(
        /^The upgrade from PostgreSQL 15 to 18 cannot run: The schema does not restore on PostgreSQL 18 \(\d+ errors in a rehearsal of pg_dumpall --schema-only; the first: ERROR: +unrecognized parameter "pg_attver"\)\.$/,
      );
      expect(pod.volume()).toEqual(["pgdata"]);
    } finally {
      await server.stop("fast");
    }
  });

  it("leaves PostgreSQL 15's data as it was when pg_upgrade is killed midway", async () => {
    const run = pod.spawnScript("17", "run");
    // pg_upgrade starts the old server to read its schema: kill pg_upgrade then.
    await until(
      "pg_upgrade's old server",
      () => pod.postmasterOf(pod.host("data/pgdata")) !== undefined,
    );
    for (const pid of processesOf("pg_upgrade", pod.inner)) process.kill(pid, "SIGKILL");
    expect(await exited(run)).toBe(1);
    expect(pod.terminationMessage).toMatch(
      /^pg_upgrade from PostgreSQL 15 to 17 failed, and PostgreSQL 15's data directory is as it was: /,
    );
    expect(pod.postmasterOf(pod.host("data/pgdata"))).toBeUndefined();
    expect(pod.volume()).toEqual(["pgdata"]);
    const back = await readBack(pod, "15");
    expect(back.version).toMatch(/^15\./);
    expect(back.rows).toBe(String(ROWS));
  });

  it("upgrades to 17 on the next run after its container was killed midway, from a crashed primary", async () => {
    // A primary that crashed (no shutdown checkpoint) is recovered by its own major first.
    const crashed = await pod.server("15");
    crashed.sql(
      `INSERT INTO acknowledged SELECT g FROM generate_series(${ROWS + 1}, ${2 * ROWS}) g`,
    );
    await crashed.killAll();

    const killed = pod.spawnScript("17", "run");
    await until(
      "pg_upgrade's copy",
      () =>
        pod.volume().includes("pgdata.upgrade") && processesOf("pg_upgrade", pod.inner).length > 0,
    );
    // The container dies with everything in it: the script, pg_upgrade and the servers it started.
    process.kill(-(killed.pid as number), "SIGKILL");
    await exited(killed);
    for (const dir of ["data/pgdata", "data/pgdata.upgrade"]) {
      const pid = pod.postmasterOf(pod.host(dir));
      if (pid) process.kill(pid, "SIGKILL");
    }
    for (const pid of processesOf("pg_upgrade", pod.inner)) process.kill(pid, "SIGKILL");

    const done = pod.script("17", "run");
    expect(done.status).toBe(0);
    expect(done.message).toMatch(/^Upgraded from PostgreSQL 15 to 17 in \d+ s\.$/);
    expect(pod.volume()).toEqual(["pgdata", "pgdata.pre-upgrade"]);
    const upgraded = await readBack(pod, "17");
    expect(upgraded.version).toMatch(/^17\./);
    expect(upgraded.rows).toBe(String(2 * ROWS));
    // Run again (the init container of a restarted pod): nothing to do.
    expect(pod.script("17", "run").status).toBe(0);
    expect(pod.volume()).toEqual(["pgdata", "pgdata.pre-upgrade"]);
  });

  it("rolls back to PostgreSQL 15's data, kept as it was, and upgrades again", async () => {
    expect(pod.script("17", "rollback").status).toBe(0);
    expect(pod.volume()).toEqual(["pgdata"]);
    const rolledBack = await readBack(pod, "15");
    expect(rolledBack.version).toMatch(/^15\./);
    expect(rolledBack.rows).toBe(String(2 * ROWS));

    expect(pod.script("17", "run").status).toBe(0);
    expect((await readBack(pod, "17")).rows).toBe(String(2 * ROWS));
  });

  it("refuses a second upgrade until the first is committed, and never goes down", () => {
    expect(pod.script("17", "export-runtime").status).toBe(0);
    const uncommitted = pod.script("18", "run");
    expect(uncommitted.status).toBe(1);
    expect(uncommitted.message).toContain(
      "An earlier upgrade's old data directory is still kept in",
    );
    const down = pod.script("15", "run");
    expect(down.status).toBe(1);
    expect(down.message).toBe(
      "The data directory is PostgreSQL 17's and this image runs PostgreSQL 15: a major upgrade only goes up.",
    );
    expect(pod.volume()).toEqual(["pgdata", "pgdata.pre-upgrade"]);
  });

  it("commits; 17 to 18 is refused by the rehearsal of the schema, and a run anyway keeps 17's data", async () => {
    // A commit cut short midway through its deletion: what is left is never rolled back to.
    renameSync(pod.host("data/pgdata.pre-upgrade"), pod.host("data/pgdata.committed"));
    rmSync(pod.host("data/pgdata.committed/base"), { recursive: true });
    const rollback = pod.script("17", "rollback");
    expect(rollback).toMatchObject({
      status: 1,
      message: "There is no old data directory to roll back to.",
    });
    expect(pod.volume()).toEqual(["pgdata"]);
    expect(pod.script("17", "commit").status).toBe(0);
    expect(pod.volume()).toEqual(["pgdata"]);
    // Debian trixie's 17.12 keeps an attribute version (the option pg_attver) on every column,
    // which forky's 18.6 does not know: pg_upgrade --check passes, the schema's restore fails.
    const server = await pod.server("17");
    let refused;
    try {
      refused = pod.script("18", "check");
      expect(server.sql("SELECT count(*) FROM acknowledged")).toBe(String(2 * ROWS));
    } finally {
      await server.stop("fast");
    }
    expect(refused.status).toBe(1);
    expect(refused.message).toMatch(
      /^The upgrade from PostgreSQL 17 to 18 cannot run: The schema does not restore on PostgreSQL 18 \(\d+ errors in a rehearsal of pg_dumpall --schema-only; the first: ERROR: +unrecognized parameter "pg_attver"\)\.$/,
    );
    expect(pod.volume()).toEqual(["pgdata"]);

    const failed = pod.script("18", "run");
    expect(failed.status).toBe(1);
    expect(failed.message).toMatch(
      /^pg_upgrade from PostgreSQL 17 to 18 failed, and PostgreSQL 17's data directory is as it was: .*unrecognized parameter "pg_attver"/,
    );
    expect(pod.volume()).toEqual(["pgdata"]);
    const kept = await readBack(pod, "17");
    expect(kept.version).toMatch(/^17\./);
    expect(kept.rows).toBe(String(2 * ROWS));
  });
});

describe("a volume without room for the copy", () => {
  let pod: UpgradePod;
  beforeAll(() => (pod = new UpgradePod()));
  afterAll(() => pod?.destroy());

  it("is refused with the figures, before anything is written", async () => {
    pod.smallDataVolume(64);
    pod.initdb("15");
    const server = await pod.server("15");
    server.sql(`CREATE TABLE acknowledged AS SELECT g AS id FROM generate_series(1, ${ROWS}) g`);
    await server.stop("fast");
    expect(pod.script("15", "export-runtime").status).toBe(0);
    const refused = pod.script("17", "run");
    expect(refused.status).toBe(1);
    expect(refused.message).toMatch(
      /^The upgrade from PostgreSQL 15 to 17 cannot run: The data volume has \d+ MiB free; an upgrade by copy needs \d+ MiB beside the data directory \(its size, and a tenth more\)\. Grow spec\.storage\.size first\.$/,
    );
    expect(pod.volume()).toEqual(["pgdata"]);
    expect((await readBack(pod, "15")).rows).toBe(String(ROWS));
  });
});

describe("a major upgrade of a Database that archives and has backups", () => {
  let pod: UpgradePod;
  let restored: UpgradePod;
  let store: ObjectStore;
  beforeAll(async () => {
    pod = new UpgradePod();
    restored = new UpgradePod();
    store = await ObjectStore.start();
  });
  let stopOld = async (): Promise<void> => {};
  afterAll(async () => {
    await stopOld();
    pod?.destroy();
    restored?.destroy();
    await store?.stop();
  });
  const REPOSITORY = "/backups/upgrade-test";
  let preUpgradeBackup = "";
  let beforeUpgrade = "";

  it("upgrades 15 to 17, then the repository's stanza, then backs up the new major", async () => {
    pod.archiveTo(store, REPOSITORY);
    pod.initdb("15");
    const old = await pod.server("15", { archiving: true });
    // Stopped by the test below; by afterAll if it fails first.
    stopOld = () => old.stop("fast");
    old.sql(`CREATE TABLE acknowledged AS SELECT g AS id FROM generate_series(1, ${ROWS}) g`);
    // The first push creates the stanza (archive.sh), as in a pod.
    old.sql("SELECT pg_switch_wal()");
    await old.waitFor("SELECT archived_count > 0 FROM pg_stat_archiver", "t", 60_000);
    pod.pgbackrest("15", "backup", "--type=full");
    preUpgradeBackup = JSON.parse(pod.pgbackrest("15", "info", "--output=json"))[0].backup[0]
      .label as string;
    old.sql(`INSERT INTO acknowledged SELECT g FROM generate_series(${ROWS + 1}, ${2 * ROWS}) g`);
    beforeUpgrade = old.sql("SELECT now()");
    // Written after the point the restore below goes back to.
    old.sql(
      `INSERT INTO acknowledged SELECT g FROM generate_series(${2 * ROWS + 1}, ${3 * ROWS}) g`,
    );
    old.sql("SELECT pg_switch_wal()");
    await old.stop("fast"); // a clean shutdown archives the last WAL

    expect(pod.script("15", "export-runtime").status).toBe(0);
    expect(pod.script("17", "run")).toMatchObject({ status: 0 });
    const upgraded = await pod.server("17", { archiving: true });
    try {
      expect(pod.script("17", "stanza-upgrade")).toMatchObject({
        status: 0,
        message: "The repository's stanza is PostgreSQL 17's.",
      });
      expect(pod.script("17", "analyze").status).toBe(0);
      expect(
        upgraded.sql("SELECT count(*) > 0 FROM pg_stats WHERE tablename = 'acknowledged'"),
      ).toBe("t");
      upgraded.sql(
        `INSERT INTO acknowledged SELECT g FROM generate_series(${3 * ROWS + 1}, ${4 * ROWS}) g`,
      );
      pod.pgbackrest("17", "check"); // the new major's WAL reaches the repository
      pod.pgbackrest("17", "backup", "--type=full");
      const [stanza] = JSON.parse(pod.pgbackrest("17", "info", "--output=json")) as {
        db: { version: string }[];
        backup: { label: string; database: { id: number } }[];
      }[];
      expect(stanza.db.map(d => d.version)).toEqual(["15", "17"]);
      expect(stanza.backup.map(b => b.database.id)).toEqual([1, 2]);
      expect(upgraded.sql("SELECT count(*) FROM acknowledged")).toBe(String(4 * ROWS));
    } finally {
      await upgraded.stop("fast");
    }
  });

  it("restores the pre-upgrade backup into a new PostgreSQL 15 Database, to a time before the upgrade", async () => {
    restored.archiveTo(store, REPOSITORY);
    restored.pgbackrest(
      "15",
      "restore",
      `--set=${preUpgradeBackup}`,
      "--type=time",
      `--target=${beforeUpgrade}`,
      "--target-action=promote",
    );
    const server = await restored.server("15");
    try {
      await server.waitFor("SELECT pg_is_in_recovery()", "f", 120_000);
      expect(server.sql("SHOW server_version")).toMatch(/^15\./);
      expect(server.sql("SELECT count(*) FROM acknowledged")).toBe(String(2 * ROWS));
    } finally {
      await server.stop("fast");
    }
  });
});

describe("the upgrade Job's script (upgrade.sh job): every instance stopped", () => {
  let pod: UpgradePod;
  let store: ObjectStore;
  beforeAll(async () => {
    pod = new UpgradePod();
    store = await ObjectStore.start();
  });
  afterAll(async () => {
    pod?.destroy();
    await store?.stop();
  });
  const pgVersion = (): string => readFileSync(pod.host("data/pgdata/PG_VERSION"), "utf8").trim();

  it("rolls back to PostgreSQL 15's data when the stanza cannot be upgraded, and names why", async () => {
    pod.archiveTo(store, "/backups/job-test");
    pod.initdb("15");
    const old = await pod.server("15", { archiving: true });
    try {
      old.sql(`CREATE TABLE acknowledged AS SELECT g AS id FROM generate_series(1, ${ROWS}) g`);
      old.sql("SELECT pg_switch_wal()");
      await old.waitFor("SELECT archived_count > 0 FROM pg_stat_archiver", "t", 60_000);
    } finally {
      await old.stop("fast");
    }
    expect(pod.script("15", "export-runtime").status).toBe(0);
    // The store refuses these keys: pg_upgrade succeeds, the stanza upgrade after it does not.
    pod.write("credentials/repo1-s3-key-secret", "not-the-secret");
    const refused = pod.script("17", "job");
    expect(refused.status).toBe(1);
    expect(refused.message).toMatch(/^pgbackrest stanza-upgrade failed: .*ERROR/);
    expect(refused.message).toContain("PostgreSQL 15's data directory is back in place, as it was");
    expect(pgVersion()).toBe("15");
    expect(await readBack(pod, "15")).toMatchObject({ rows: String(ROWS) });
  });

  it("converts, gathers the statistics before any client, upgrades the stanza offline", async () => {
    pod.write("credentials/repo1-s3-key-secret", store.secretKey);
    const done = pod.script("17", "job");
    expect(done).toMatchObject({
      status: 0,
      message:
        "Upgraded from PostgreSQL 15 to 17; the old data directory is kept until the upgrade is committed.",
    });
    expect(pgVersion()).toBe("17");
    const upgraded = await pod.server("17", { archiving: true });
    try {
      // Analyzed by the Job, on its private server: the first query finds statistics.
      expect(
        upgraded.sql("SELECT count(*) > 0 FROM pg_stats WHERE tablename = 'acknowledged'"),
      ).toBe("t");
      expect(upgraded.sql("SELECT count(*) FROM acknowledged")).toBe(String(ROWS));
      pod.pgbackrest("17", "check"); // the new major's WAL is taken by the upgraded stanza
      const [stanza] = JSON.parse(pod.pgbackrest("17", "info", "--output=json")) as {
        db: { version: string }[];
      }[];
      expect(stanza.db.map(d => d.version)).toEqual(["15", "17"]);
    } finally {
      await upgraded.stop("fast");
    }
    // A rerun (a Job retried after a kill) repeats the steps after the swap and succeeds.
    expect(pod.script("17", "job").status).toBe(0);
    expect(pod.script("17", "commit").status).toBe(0);
    expect(pod.script("17", "job").message).toContain("nothing to finish");
  });
});
