/**
 * The instance entrypoint (entrypoint.sh, run for real) refuses, before anything is written, to
 * run server programs of another major than the Database's version, or to start a data directory
 * another major wrote: a tag can name one major and hold another. Its reason goes into the
 * termination message, where the operator reads it (status.instances[].startRefused).
 */
import { spawnSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { ENV } from "../../capabilities/database/specs/layout";
import { Cluster } from "./harness/cluster";
import { entrypointFor } from "./harness/entrypoint";
import { pgMajor, serverAccount } from "./harness/os";
import { PgServer } from "./harness/server";

jest.setTimeout(120_000);

let cluster: Cluster;
let server: PgServer;
let launch: ReturnType<typeof entrypointFor>;
beforeAll(async () => {
  cluster = new Cluster();
  server = await cluster.primary("db-0");
  server.sql("CREATE TABLE kept AS SELECT 42 AS answer");
  await server.stop("fast");
  launch = entrypointFor(cluster, server, server, "db-0");
});
afterAll(() => cluster.destroy());

/** Runs the entrypoint as the pod would, with `env` over the usual; its exit and message. */
function runEntrypoint(env: Record<string, string>): { status: number | null; message: string } {
  const terminationLog = path.join(cluster.root, "termination-log");
  cluster.writeOwned(terminationLog, "");
  const r = spawnSync(launch.command, launch.args, {
    ...serverAccount(),
    env: {
      PATH: process.env.PATH,
      LANG: "C",
      ...launch.env,
      PGKEEPER_TERMINATION_LOG: terminationLog,
      ...env,
    },
    timeout: 60_000,
  });
  return { status: r.status, message: readFileSync(terminationLog, "utf8") };
}

/** A directory the server's account owns, as a data directory is. */
function mkdirOwned(dir: string): void {
  mkdirSync(dir, { mode: 0o700 });
  const { uid, gid } = serverAccount();
  if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid);
}

const dataFiles = () => readdirSync(server.dataDir).sort();

it("refuses server programs of another major than the Database's, touching nothing", () => {
  const before = dataFiles();
  const other = String(Number(pgMajor()) + 2);
  const { status, message } = runEntrypoint({ [ENV.pgMajor]: other });
  expect(status).toBe(1);
  expect(message).toMatch(
    new RegExp(
      `^The image runs PostgreSQL ${pgMajor()} \\(postgres \\(PostgreSQL\\) ${pgMajor()}\\.\\d+.*\\) but the Database's version is ${other}: refusing to start\\. Set spec\\.image to an image of PostgreSQL ${other}\\.$`,
    ),
  );
  expect(dataFiles()).toEqual(before);
});

it("refuses a data directory another major wrote, touching nothing", () => {
  const versionFile = path.join(server.dataDir, "PG_VERSION");
  const written = readFileSync(versionFile, "utf8");
  writeFileSync(versionFile, "14\n");
  try {
    const before = dataFiles();
    const { status, message } = runEntrypoint({});
    expect(status).toBe(1);
    expect(message).toContain(
      `The data directory was written by PostgreSQL 14 and the image runs PostgreSQL ${pgMajor()} (`,
    );
    expect(message).toContain("refusing to start it. A major upgrade must convert the data first.");
    expect(dataFiles()).toEqual(before);
  } finally {
    writeFileSync(versionFile, written);
  }
});

it("starts its own major's data directory with its own major's programs, data intact", async () => {
  await server.start(60_000, launch);
  expect(server.sql("SELECT answer FROM kept")).toBe("42");
  await server.stop("fast");
});

it("puts the old data directory back when a rollback of an upgrade was interrupted, dropping the copy", async () => {
  // upgrade.sh rollback renames PGDATA to .upgrade, then .pre-upgrade to PGDATA: killed between.
  renameSync(server.dataDir, `${server.dataDir}.pre-upgrade`);
  mkdirSync(`${server.dataDir}.upgrade`);
  await server.start(60_000, launch);
  expect(server.sql("SELECT answer FROM kept")).toBe("42");
  await server.stop("fast");
  expect(existsSync(`${server.dataDir}.pre-upgrade`)).toBe(false);
  expect(existsSync(`${server.dataDir}.upgrade`)).toBe(false);
});

it("puts its own major's data back when an upgrade Job did not finish after the swap", async () => {
  // The Job swapped in the new major's directory (never started), kept the old one, and died.
  renameSync(server.dataDir, `${server.dataDir}.pre-upgrade`);
  mkdirOwned(server.dataDir);
  cluster.writeOwned(path.join(server.dataDir, "PG_VERSION"), `${Number(pgMajor()) + 2}\n`);
  cluster.writeOwned(`${server.dataDir}.unfinished`, "");
  await server.start(60_000, launch);
  expect(server.sql("SELECT answer FROM kept")).toBe("42");
  await server.stop("fast");
  expect(existsSync(`${server.dataDir}.pre-upgrade`)).toBe(false);
  expect(existsSync(`${server.dataDir}.unfinished`)).toBe(false);
});

it("never starts the data an unfinished upgrade Job left with another major's programs", () => {
  // Seen from the new major's side: its data beside an older one the Job kept.
  const kept = `${server.dataDir}.pre-upgrade`;
  mkdirOwned(kept);
  cluster.writeOwned(path.join(kept, "PG_VERSION"), `${Number(pgMajor()) - 1}\n`);
  cluster.writeOwned(`${server.dataDir}.unfinished`, "");
  const before = dataFiles();
  const { status, message } = runEntrypoint({});
  expect(status).toBe(1);
  expect(message).toContain(
    `The upgrade from PostgreSQL ${Number(pgMajor()) - 1} did not finish (its Job failed)`,
  );
  expect(dataFiles()).toEqual(before);
  expect(existsSync(kept)).toBe(true);
});
