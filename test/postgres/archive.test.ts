/**
 * Continuous archiving as the instances do it (harness/archiving.ts): the real
 * pgbackrest-archive.sh pushing through pgBackRest into a real S3-compatible store (versitygw,
 * TLS), with the configuration the operator renders.
 */
import { probeInstance } from "../../capabilities/database/instance/instance-sql";
import { bin } from "./harness/os";
import { archivingPrimary, pgbackrest } from "./harness/archiving";
import { Cluster } from "./harness/cluster";
import { ObjectStore } from "./harness/object-store";

jest.setTimeout(400_000);

let cluster: Cluster;
let store: ObjectStore;
beforeEach(async () => {
  cluster = new Cluster();
  store = await ObjectStore.start();
});
afterEach(async () => {
  await cluster.destroy();
  await store.destroy();
});

const DB = { namespace: "prod", name: "orders", uid: "uid-1" };

describe("pgbackrest-archive.sh: continuous WAL archiving into an S3-compatible store", () => {
  it("creates the stanza at the first push, then archives every switched segment", async () => {
    const { server } = await archivingPrimary(cluster, store, "db-0", DB);
    server.sql("CREATE TABLE t AS SELECT g FROM generate_series(1, 10000) g");
    const wal = server.sql("SELECT pg_walfile_name(pg_current_wal_lsn())");
    server.sql("SELECT pg_switch_wal()");
    await server.waitFor(`SELECT last_archived_wal >= '${wal}' FROM pg_stat_archiver`, "t", 60_000);
    expect(server.sql("SELECT failed_count FROM pg_stat_archiver")).toBe("0");
    // What the operator's probe reads (and the ContinuousArchiving condition is made of).
    const probe = await probeInstance(server.target, 10_000);
    expect(probe.archiver).toMatchObject({ failedCount: 0, waiting: 0 });
    expect(probe.archiver!.archivedCount).toBeGreaterThan(0);
    expect(probe.archiver!.lastArchivedWal! >= wal).toBe(true);
    expect(server.logTail(200)).toContain(
      "No pgBackRest stanza in the repository yet: creating it",
    );
  });

  it("reads whether the image has pgBackRest from the setting the entrypoint starts PostgreSQL with", async () => {
    const { server, env } = await archivingPrimary(cluster, store, "db-0", DB);
    // Started before the entrypoint said so: nothing is claimed.
    expect((await probeInstance(server.target, 10_000)).archiver).not.toHaveProperty(
      "imageHasPgBackRest",
    );
    for (const has of ["off", "on"]) {
      await server.stop("fast");
      await server.start(60_000, {
        command: bin("postgres"),
        args: ["-D", server.dataDir, "-c", `pgkeeper.image_has_pgbackrest=${has}`],
        env,
      });
      const archiver = (await probeInstance(server.target, 10_000)).archiver;
      expect(archiver?.imageHasPgBackRest).toBe(has === "on");
    }
  });

  it("keeps every segment while the store is down, and archives them all once it is back", async () => {
    const { server, env, conf } = await archivingPrimary(cluster, store, "db-0", DB);
    const archived = () =>
      server.sql("SELECT coalesce(last_archived_wal, '') FROM pg_stat_archiver");
    server.sql("SELECT pg_switch_wal()");
    await server.waitFor("SELECT archived_count > 0 FROM pg_stat_archiver", "t", 60_000);
    await store.stop();
    const before = server.sql("SELECT failed_count FROM pg_stat_archiver");
    for (let i = 0; i < 3; i++) {
      server.sql(`CREATE TABLE t${i} AS SELECT g FROM generate_series(1, 1000) g`);
      server.sql("SELECT pg_switch_wal()");
    }
    const last = server.sql("SELECT pg_walfile_name(pg_current_wal_lsn() - 1)");
    // The failures are counted, and PostgreSQL keeps the segments (.ready), losing nothing.
    await server.waitFor(`SELECT failed_count > ${before} FROM pg_stat_archiver`, "t", 150_000);
    expect(archived() < last).toBe(true);
    const failing = (await probeInstance(server.target, 10_000)).archiver!;
    expect(failing.failedCount).toBeGreaterThan(0);
    expect(failing.waiting).toBeGreaterThan(0);

    await store.restart();
    await server.waitFor(
      `SELECT last_archived_wal >= '${last}' FROM pg_stat_archiver`,
      "t",
      120_000,
    );
    expect(
      server.sql("SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready'"),
    ).toBe("0");
    // pgBackRest's own check: a WAL switch archived end to end, the repository consistent.
    pgbackrest(cluster, env, conf, "check");
  });
});
