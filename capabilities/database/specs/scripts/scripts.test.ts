/**
 * The instance scripts, as the pods get them (the generated modules), run for real under /bin/sh
 * (dash here, as in Debian images) against stub PostgreSQL programs that record how they were
 * called; and the SQL files they feed PostgreSQL.
 */
import { spawn, spawnSync, SpawnSyncReturns } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ARCHIVE_SH } from "./archive";
import { BACKUP_JOB_SH } from "./backup-job";
import { ENTRYPOINT_SH } from "./entrypoint";
import { PGBACKREST_SERVER_SH } from "./pgbackrest-server";
import { PROBE_SH } from "./probe";
import { RESTORE_WAL_SH } from "./restore-wal";
import { BOOTSTRAP_SQL, RECOVERY_SQL, ROLES_SQL } from "./sql";

const scripts = [
  ["entrypoint.sh", ENTRYPOINT_SH],
  ["probe.sh", PROBE_SH],
  ["pgbackrest-archive.sh", ARCHIVE_SH],
  ["pgbackrest-restore-wal.sh", RESTORE_WAL_SH],
  ["pgbackrest-server.sh", PGBACKREST_SERVER_SH],
  ["pgbackrest-backup-job.sh", BACKUP_JOB_SH],
] as const;

const shells = [
  ["dash", ["/bin/sh", "-n"]],
  ["bash --posix", ["bash", "--posix", "-n"]],
] as const;

describe.each(scripts)("%s", (name, text) => {
  it.each(shells)("parses under %s", (_, [cmd, ...args]) => {
    const dir = mkdtempSync(join(tmpdir(), "pgkeeper-sh-"));
    try {
      const file = join(dir, name);
      writeFileSync(file, text);
      const r = spawnSync(cmd, [...args, file], { encoding: "utf8" });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("has no TypeScript interpolation left over and no bashisms we know of", () => {
    expect(text).not.toMatch(/\[object |undefined|\[\[ |function \w+ *\(|<<<|(^|\s)\$'/);
  });

  it("stands alone: every file it sources pasted in, no here-document", () => {
    expect(text).not.toMatch(/^\. /m);
    expect(text).not.toContain("<<");
  });
});

// --- stub world ---------------------------------------------------------------------------

const STUBS: Record<string, string> = {
  postgres: `
if [ "$1" = "--version" ]; then
  echo "postgres (PostgreSQL) \${STUB_POSTGRES_VERSION:-16.4} (Debian 16.4-1)"
  exit 0
fi
if [ "$1" = "--single" ]; then
  echo "single $*" >>"$LOG/calls"
  for arg in "$@"; do
    case "$arg" in pgkeeper.app_password_file=*) cp "\${arg#*=}" "$LOG/app.pw" ;; esac
  done
  cat >"$LOG/single.sql"
  exit 0
fi
echo "postgres $*" >>"$LOG/calls"
env >"$LOG/postgres.env"
# The restore's server (listening nowhere) runs until the entrypoint's SIGINT, which a shell in
# the background cannot catch; server-ready says it can be stopped.
case "$*" in *listen_addresses=*)
  exec "$NODE" -e "process.on('SIGINT', () => process.exit(0));
    require('node:fs').writeFileSync(process.env.LOG + '/server-ready', '');
    setInterval(() => {}, 1000);"
esac`,
  initdb: `
echo "initdb $*" >>"$LOG/calls"
while [ $# -gt 0 ]; do
  case "$1" in
    -D) dir=$2; shift ;;
    --pwfile=*) cp "\${1#--pwfile=}" "$LOG/pwfile" ;;
  esac
  shift
done
mkdir -p "$dir"
echo 16 >"$dir/PG_VERSION"`,
  pg_isready: `
echo "pg_isready $*" >>"$LOG/calls"
# Another pod's address (the headless Service's), or <db>-rw.
case "$*" in *"-h 10."*) exit "\${STUB_PEER_ISREADY_RC:-2}" ;; esac
exit "\${STUB_ISREADY_RC:-2}"`,
  pg_basebackup: `
echo "pg_basebackup $*" >>"$LOG/calls"
while [ $# -gt 0 ]; do
  case "$1" in -D) dir=$2; shift ;; esac
  shift
done
mkdir -p "$dir"
n=$(cat "$LOG/fail" 2>/dev/null || echo 0)
if [ "$n" -gt 0 ]; then
  echo $((n - 1)) >"$LOG/fail"
  # A failure after copying STUB_CLONE_COPIES_KIB of data, else before any data file.
  head -c $((\${STUB_CLONE_COPIES_KIB:-0} * 1024)) /dev/zero >"$dir/junk"
  echo partial >>"$dir/junk"
  exit 1
fi
echo 16 >"$dir/PG_VERSION"
echo data >"$dir/base.tar.gz"`,
  pg_ctl: `
echo "pg_ctl $*" >>"$LOG/calls"
exit "\${STUB_PGCTL_RC:-0}"`,
  psql: `
echo "psql $*" >>"$LOG/calls"
for arg in "$@"; do
  case "$arg" in
    superuser_password_file=*) cp "\${arg#*=}" "$LOG/superuser.pw" ;;
    app_password_file=*) cp "\${arg#*=}" "$LOG/app.pw" ;;
    *.sql) cp "$arg" "$LOG/psql.sql" ;;
  esac
done
# recovery.sql runs on the restore's server: the entrypoint stops it next.
case "$*" in *" -f "*)
  while [ ! -f "$LOG/server-ready" ]; do /bin/sleep 0.05; done
esac
case "$*" in *checkpoint*)
  n=$(cat "$LOG/checkpoint-fails" 2>/dev/null || echo 0)
  [ "$n" -gt 0 ] || exit 0
  echo $((n - 1)) >"$LOG/checkpoint-fails"
  exit 2
esac
n=$(cat "$LOG/not-writable" 2>/dev/null || echo 0)
if [ "$n" -gt 0 ]; then
  echo $((n - 1)) >"$LOG/not-writable"
  echo f
  exit 0
fi
echo t`,
  pg_rewind: `
echo "pg_rewind $*" >>"$LOG/calls"
[ ! -f "$PGDATA/postmaster.pid" ] || echo "pg_rewind saw postmaster.pid" >>"$LOG/calls"
exit "\${STUB_REWIND_RC:-0}"`,
};

const PATH_STUBS: Record<string, string> = {
  getent: `
echo "getent $*" >>"$LOG/calls"
[ -n "\${STUB_GETENT:-}" ] || exit 2
printf '%s\\n' "$STUB_GETENT"`,
  sleep: `
echo "sleep $*" >>"$LOG/calls"
# The pod is killed while it waits (the script's shell ends here).
[ -z "\${STUB_KILLED_IN_SLEEP:-}" ] || kill -9 "$PPID"`,
  pgbackrest: `
echo "pgbackrest $*" >>"$LOG/calls"
for arg in "$@"; do
  case "$arg" in --pg1-path=*) dir=\${arg#*=} ;; esac
done
mkdir -p "$dir"
echo 16 >"$dir/PG_VERSION"
echo "restore_command = 'pgbackrest archive-get'" >"$dir/postgresql.auto.conf"`,
};

interface World {
  root: string;
  pgdata: string;
  run: string;
  log: string;
  env: Record<string, string>;
}

function makeWorld(): World {
  const root = mkdtempSync(join(tmpdir(), "pgkeeper-world-"));
  const dirs = ["bin", "path", "run", "log", "data", "config", "topology", "credentials"].map(d =>
    join(root, d),
  );
  dirs.forEach(d => mkdirSync(d));
  const write = (dir: string, stubs: Record<string, string>) =>
    Object.entries(stubs).forEach(([name, body]) => {
      writeFileSync(join(root, dir, name), `#!/bin/sh\n${body}\n`);
      chmodSync(join(root, dir, name), 0o755);
    });
  write("bin", STUBS);
  write("path", PATH_STUBS);
  writeFileSync(join(root, "config", "managed.conf"), "work_mem = '8MB'\n");
  writeFileSync(join(root, "config", "bootstrap.sql"), BOOTSTRAP_SQL);
  // The credentials volume, as the StatefulSet mounts it.
  writeFileSync(join(root, "credentials", "superuser-password"), "su:pw\\x");
  writeFileSync(join(root, "credentials", "app-password"), `it's "app" $HOME \`id\``);
  const world = {
    root,
    pgdata: join(root, "data", "pgdata"),
    run: join(root, "run"),
    log: join(root, "log"),
    env: {},
  };
  world.env = {
    PATH: `${join(root, "path")}:/usr/bin:/bin`,
    LOG: world.log,
    NODE: process.execPath,
    PG_BIN: join(root, "bin"),
    PG_MAJOR: "16",
    PGDATA: world.pgdata,
    PGKEEPER_RUN_DIR: world.run,
    PGKEEPER_CONFIG_DIR: join(root, "config"),
    PGKEEPER_TOPOLOGY_DIR: join(root, "topology"),
    PGKEEPER_CREDENTIALS_DIR: join(root, "credentials"),
    POD_NAME: "orders-0",
    POD_IP: "10.0.0.5",
    PRIMARY_HOST: "orders-rw",
    HEADLESS_SERVICE: "orders-hl",
  };
  return world;
}

function run(
  world: World,
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): SpawnSyncReturns<string> {
  const file = join(world.root, "script.sh");
  writeFileSync(file, script);
  return spawnSync("/bin/sh", [file, ...args], {
    encoding: "utf8",
    env: { ...world.env, ...env },
    timeout: 20_000,
  });
}

const calls = (w: World): string[] =>
  existsSync(join(w.log, "calls"))
    ? readFileSync(join(w.log, "calls"), "utf8").trim().split("\n")
    : [];
const programs = (w: World): string[] => calls(w).map(c => c.split(" ")[0]);
const read = (path: string): string => readFileSync(path, "utf8");
const designate = (primary: string): void =>
  writeFileSync(join(world.root, "topology", "primary"), primary);
const initialise = (standby: boolean): void => {
  mkdirSync(world.pgdata);
  writeFileSync(join(world.pgdata, "PG_VERSION"), "16\n");
  if (standby) writeFileSync(join(world.pgdata, "standby.signal"), "");
};

let world: World;
beforeEach(() => {
  world = makeWorld();
});
afterEach(() => {
  rmSync(world.root, { recursive: true, force: true });
});

describe("entrypoint.sh decides how the data directory is made", () => {
  it.each<[string, Record<string, string>, () => void, string[]]>([
    [
      "ordinal 0, alone: initdb",
      {},
      () => undefined,
      ["pg_isready", "getent", "initdb", "single", "postgres"],
    ],
    [
      "ordinal 0, a primary answers: clone",
      { STUB_ISREADY_RC: "0" },
      () => undefined,
      ["pg_isready", "pg_basebackup", "postgres"],
    ],
    [
      "ordinal 0, a primary rejects connections (starting): clone",
      { STUB_ISREADY_RC: "1" },
      () => undefined,
      ["pg_isready", "pg_basebackup", "postgres"],
    ],
    [
      "ordinal 0, a peer's server answers: clone",
      { STUB_GETENT: "10.0.0.5 STREAM orders-hl\n10.0.0.6 STREAM", STUB_PEER_ISREADY_RC: "0" },
      () => undefined,
      ["pg_isready", "getent", "pg_isready", "pg_basebackup", "postgres"],
    ],
    [
      "ordinal 0, a peer's server rejects connections (starting): clone",
      { STUB_GETENT: "10.0.0.5 STREAM orders-hl\n10.0.0.6 STREAM", STUB_PEER_ISREADY_RC: "1" },
      () => undefined,
      ["pg_isready", "getent", "pg_isready", "pg_basebackup", "postgres"],
    ],
    [
      "ordinal 0, peers listed with no server up (a first boot, pods created together): initdb",
      { STUB_GETENT: "10.0.0.5 STREAM orders-hl\n10.0.0.6 STREAM\n10.0.0.7 STREAM" },
      () => undefined,
      ["pg_isready", "getent", "pg_isready", "pg_isready", "initdb", "single", "postgres"],
    ],
    [
      "ordinal 0, only itself listed: initdb",
      { STUB_GETENT: "10.0.0.5 STREAM orders-hl\n10.0.0.5 DGRAM" },
      () => undefined,
      ["pg_isready", "getent", "initdb", "single", "postgres"],
    ],
    ["ordinal 1: clone", { POD_NAME: "orders-1" }, () => undefined, ["pg_basebackup", "postgres"]],
    [
      "ordinal 10: clone",
      { POD_NAME: "orders-10" },
      () => undefined,
      ["pg_basebackup", "postgres"],
    ],
    [
      "initialised: start",
      { POD_NAME: "orders-1" },
      () => {
        mkdirSync(world.pgdata);
        writeFileSync(join(world.pgdata, "PG_VERSION"), "16\n");
      },
      ["postgres"],
    ],
    [
      "empty PGDATA directory: treated as absent",
      {},
      () => mkdirSync(world.pgdata),
      ["pg_isready", "getent", "initdb", "single", "postgres"],
    ],
  ])("%s", (_, env, setup, expected) => {
    setup();
    const r = run(world, ENTRYPOINT_SH, [], env);
    expect(r.stderr).not.toMatch(/not found|unbound|parameter not set/);
    expect(r.status).toBe(0);
    expect(programs(world)).toEqual(expected);
    expect(existsSync(join(world.pgdata, "PG_VERSION"))).toBe(true);
    expect(calls(world).at(-1)).toBe(
      `postgres -D ${world.pgdata} -c config_file=${world.root}/config/postgresql.conf -c pgkeeper.image_has_pgbackrest=on`,
    );
  });

  it("tells PostgreSQL the image has no pgBackRest when PATH finds none (the probe reads it)", () => {
    // Every program of this machine's /usr/bin but pgbackrest, and the stubs but theirs.
    const bin = join(world.root, "usr-bin-without-pgbackrest");
    mkdirSync(bin);
    for (const name of readdirSync("/usr/bin").filter(n => n !== "pgbackrest")) {
      symlinkSync(join("/usr/bin", name), join(bin, name));
    }
    rmSync(join(world.root, "path", "pgbackrest"));
    const r = run(world, ENTRYPOINT_SH, [], { PATH: `${join(world.root, "path")}:${bin}` });
    expect(r.status).toBe(0);
    expect(calls(world).at(-1)).toMatch(/ -c pgkeeper\.image_has_pgbackrest=off$/);
  });

  it("ordinal 0 told another instance is primary: clones, never initdb (its volume was lost)", () => {
    designate("orders-2");
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    expect(programs(world)).toEqual(["pg_basebackup", "postgres"]);
  });

  it.each([
    ["named primary", "orders-0"],
    ["no primary named", ""],
  ])(
    "ordinal 0 without data once the Database held data (%s): clones, never initdb",
    (_, primary) => {
      if (primary) designate(primary);
      writeFileSync(join(world.root, "topology", "initialized"), "2026-11-29T10:00:00.000Z");
      const r = run(world, ENTRYPOINT_SH);
      expect(r.status).toBe(0);
      expect(programs(world)).toEqual(["pg_basebackup", "postgres"]);
      expect(r.stderr).toContain(
        "This Database has held data since 2026-11-29T10:00:00.000Z: an instance without data clones a primary and never initialises an empty one",
      );
    },
  );

  it("initdb: installs the managed parameters as postgresql.auto.conf", () => {
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    expect(read(join(world.pgdata, "postgresql.auto.conf"))).toBe("work_mem = '8MB'\n");
  });

  it("initdb: superuser password by file (then removed), trust locally, SCRAM over the network", () => {
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    const initdb = calls(world).find(c => c.startsWith("initdb"))!;
    expect(initdb).toContain(`-D ${world.pgdata}.init -U postgres --pwfile=${world.run}/initdb.pw`);
    expect(initdb).toContain("--auth-local=trust --auth-host=scram-sha-256");
    expect(read(join(world.log, "pwfile"))).toBe("su:pw\\x\n");
    expect(existsSync(join(world.run, "initdb.pw"))).toBe(false);
    expect(existsSync(`${world.pgdata}.init`)).toBe(false);
  });

  it("initdb: feeds bootstrap.sql to postgres --single from the file: the app role and database, the operator's roles", () => {
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    expect(read(join(world.log, "single.sql"))).toBe(BOOTSTRAP_SQL);
    expect(calls(world).find(c => c.startsWith("single"))).toContain(
      "-c exit_on_error=on -c log_min_error_statement=panic",
    );
  });

  it("initdb: the app password reaches single-user mode as a file it names, as it is, then removed", () => {
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    expect(calls(world).find(c => c.startsWith("single"))).toContain(
      `-c pgkeeper.app_password_file=${world.run}/app.pw postgres`,
    );
    expect(read(join(world.log, "app.pw"))).toBe(`it's "app" $HOME \`id\``);
    expect(existsSync(join(world.run, "app.pw"))).toBe(false);
  });

  it("clone: pg_basebackup through <db>-rw as streaming_replica by certificate, then standby.signal", () => {
    expect(run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-2" }).status).toBe(0);
    expect(calls(world)[0]).toBe(
      `pg_basebackup -D ${world.pgdata}.clone -d host=orders-rw port=5432 dbname=replication user=streaming_replica sslmode=verify-full sslrootcert=/tls/server-ca.crt sslcert=/tls/replication.crt sslkey=/tls/replication.key connect_timeout=5 -w -X stream -c fast --no-clean`,
    );
    expect(existsSync(join(world.pgdata, "standby.signal"))).toBe(true);
    expect(existsSync(`${world.pgdata}.clone`)).toBe(false);
  });

  it("clone: retries until pg_basebackup succeeds, never keeping a partial copy", () => {
    writeFileSync(join(world.log, "fail"), "2");
    expect(run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1" }).status).toBe(0);
    expect(programs(world)).toEqual([
      "pg_basebackup",
      "sleep",
      "pg_basebackup",
      "sleep",
      "pg_basebackup",
      "postgres",
    ]);
    expect(existsSync(join(world.pgdata, "junk"))).toBe(false);
  });

  it("clone: backs off only attempts that copied data, doubling to 5 minutes, across restarts", () => {
    writeFileSync(join(world.log, "fail"), "3");
    const copying = { POD_NAME: "orders-1", STUB_CLONE_COPIES_KIB: "20000" };
    const r = run(world, ENTRYPOINT_SH, [], copying);
    expect(r.status).toBe(0);
    expect(calls(world).filter(c => c.startsWith("sleep"))).toEqual([
      "sleep 5",
      "sleep 10",
      "sleep 20",
    ]);
    expect(r.stderr).toMatch(
      /Clone failed after copying 200\d\d KiB \(attempt 3 in a row to fail after copying data\); retrying in 20 seconds, since each attempt copies the whole primary again/,
    );
    // Done: the count is gone, and so is every failed attempt's copy.
    expect(existsSync(`${world.pgdata}.clone-failures`)).toBe(false);
    expect(existsSync(join(world.pgdata, "junk"))).toBe(false);
  });

  it.each([
    ["a restarted container goes on from the count beside PGDATA", "5", "sleep 160"],
    ["at most 5 minutes", "12", "sleep 300"],
  ])("clone backoff: %s", (_, before, sleep) => {
    writeFileSync(`${world.pgdata}.clone-failures`, before);
    writeFileSync(join(world.log, "fail"), "1");
    const r = run(world, ENTRYPOINT_SH, [], {
      POD_NAME: "orders-1",
      STUB_CLONE_COPIES_KIB: "20000",
    });
    expect(r.status).toBe(0);
    expect(calls(world).filter(c => c.startsWith("sleep"))).toEqual([sleep]);
  });

  it("clone: an attempt that failed before copying data is retried in 5 s and resets nothing", () => {
    writeFileSync(`${world.pgdata}.clone-failures`, "4");
    writeFileSync(join(world.log, "fail"), "2");
    const r = run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1" });
    expect(r.status).toBe(0);
    expect(calls(world).filter(c => c.startsWith("sleep"))).toEqual(["sleep 5", "sleep 5"]);
    expect(r.stderr).toContain("Clone failed before copying data; retrying in 5 seconds");
  });

  it.each([
    [
      "programs of another major than spec.version",
      { PG_MAJOR: "15" },
      false,
      "The image runs PostgreSQL 16 (postgres (PostgreSQL) 16.4 (Debian 16.4-1)) but the Database's version is 15: refusing to start. Set spec.image to an image of PostgreSQL 15.",
    ],
    [
      "a data directory another major wrote",
      { STUB_POSTGRES_VERSION: "17.2", PG_MAJOR: "17" },
      true,
      "The data directory was written by PostgreSQL 16 and the image runs PostgreSQL 17 (postgres (PostgreSQL) 17.2 (Debian 16.4-1)): refusing to start it. A major upgrade must convert the data first.",
    ],
  ])(
    "refuses %s before running anything, saying why in the termination message",
    (_case, env, initialised, message) => {
      if (initialised) initialise(false);
      const before = initialised ? readdirSync(world.pgdata).sort() : [];
      const log = join(world.run, "termination-log");
      const r = run(world, ENTRYPOINT_SH, [], { ...env, PGKEEPER_TERMINATION_LOG: log });
      expect(r.status).toBe(1);
      expect(read(log)).toBe(message);
      expect(programs(world)).toEqual([]);
      expect(initialised ? readdirSync(world.pgdata).sort() : existsSync(world.pgdata)).toEqual(
        initialised ? before : false,
      );
    },
  );

  it("refuses a non-empty PGDATA without PG_VERSION", () => {
    mkdirSync(world.pgdata);
    writeFileSync(join(world.pgdata, "something"), "x");
    const r = run(world, ENTRYPOINT_SH);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("refusing to overwrite");
    expect(programs(world)).not.toContain("postgres");
  });

  it.each(["PGDATA", "POD_NAME", "PRIMARY_HOST"])("fails without %s", name => {
    const r = run(world, ENTRYPOINT_SH, [], { [name]: "" });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(name);
  });

  it("fails without the superuser password's file, naming it", () => {
    rmSync(join(world.root, "credentials", "superuser-password"));
    const r = run(world, ENTRYPOINT_SH);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${world.root}/credentials/superuser-password must be set`);
    expect(programs(world)).not.toContain("initdb");
  });

  it("in a pod of an earlier pgkeeper (passwords in its environment, no credentials volume) bootstraps as before", () => {
    const r = run(world, ENTRYPOINT_SH, [], {
      PGKEEPER_CREDENTIALS_DIR: join(world.root, "none"),
      PGKEEPER_SUPERUSER_PASSWORD: "old:su",
      PGKEEPER_APP_PASSWORD: "old-app",
    });
    expect(r.status).toBe(0);
    expect(read(join(world.log, "app.pw"))).toBe("old-app");
  });

  it("gives postgres no credential in its environment", () => {
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    const env = read(join(world.log, "postgres.env"));
    expect(env).not.toMatch(/su:pw|PASSWORD|S3_KEY/);
  });

  it("writes primary_conninfo with the pod name, by certificate, and no password anywhere", () => {
    expect(run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1" }).status).toBe(0);
    expect(existsSync(join(world.run, "pgpass"))).toBe(false);
    expect(read(join(world.run, "instance.conf"))).toBe(
      `primary_conninfo = 'host=orders-rw port=5432 user=streaming_replica sslmode=verify-full sslrootcert=/tls/server-ca.crt sslcert=/tls/replication.crt sslkey=/tls/replication.key application_name=orders-1 connect_timeout=5'\n`,
    );
  });

  it.each([
    ["another instance's, copied by a clone or a rewind", "orders-0", "orders-1"],
    ["its own, naming a primary that changed while it was down", "orders-2", "orders-1"],
  ])(
    "forgets a primary_conninfo in postgresql.auto.conf at start (%s); follows <db>-rw",
    (_, named, self) => {
      mkdirSync(world.pgdata);
      writeFileSync(join(world.pgdata, "PG_VERSION"), "16\n");
      writeFileSync(join(world.pgdata, "standby.signal"), "");
      const auto = join(world.pgdata, "postgresql.auto.conf");
      writeFileSync(
        auto,
        "# Do not edit this file manually!\nwork_mem = '8MB'\n" +
          `primary_conninfo = 'host=${named}.orders-hl application_name=${named}'\n` +
          "synchronous_standby_names = ''\n",
      );
      expect(run(world, ENTRYPOINT_SH, [], { POD_NAME: self }).status).toBe(0);
      expect(read(auto)).toBe(
        "# Do not edit this file manually!\nwork_mem = '8MB'\nsynchronous_standby_names = ''\n",
      );
      expect(read(join(world.run, "instance.conf"))).toContain(
        `host=orders-rw port=5432 user=streaming_replica sslmode=verify-full sslrootcert=/tls/server-ca.crt sslcert=/tls/replication.crt sslkey=/tls/replication.key application_name=${self} `,
      );
    },
  );

  it("leaves a postgresql.auto.conf without primary_conninfo as it is", () => {
    initialise(true);
    const auto = join(world.pgdata, "postgresql.auto.conf");
    writeFileSync(auto, "work_mem = '8MB'\n");
    expect(run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1" }).status).toBe(0);
    expect(read(auto)).toBe("work_mem = '8MB'\n");
  });

  it("finds the binaries through PATH when PG_BIN and the Debian layout lack them", () => {
    const r = run(world, ENTRYPOINT_SH, [], {
      PG_BIN: "",
      PG_MAJOR: "99",
      STUB_POSTGRES_VERSION: "99.1", // the programs found are of the Database's major
      PATH: `${join(world.root, "bin")}:${world.env.PATH}`,
      POD_NAME: "orders-1",
    });
    expect(r.status).toBe(0);
    expect(programs(world)).toEqual(["pg_basebackup", "postgres"]);
  });

  it("fails clearly when no postgres can be found", () => {
    const r = run(world, ENTRYPOINT_SH, [], { PG_BIN: "", PG_MAJOR: "99" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("cannot find the PostgreSQL program postgres");
  });
});

describe("entrypoint.sh restores a Database created from a backup (bootstrap.recovery)", () => {
  const restore = (env: Record<string, string> = {}) => {
    writeFileSync(join(world.root, "config", "recovery-options"), "--type=default\n");
    writeFileSync(join(world.root, "config", "recovery.sql"), RECOVERY_SQL);
    const terminationLog = join(world.log, "termination-log");
    return run(world, ENTRYPOINT_SH, [], { PGKEEPER_TERMINATION_LOG: terminationLog, ...env });
  };

  it("runs recovery.sql with psql -f from the file, the passwords as files it names, then removed", () => {
    const r = restore();
    expect(r.stderr).not.toMatch(/not found|unbound|parameter not set/);
    expect(r.status).toBe(0);
    expect(calls(world).find(c => c.includes(" -f "))).toBe(
      `psql -h ${world.run} -p 5432 -U postgres -d postgres -X -A -t -q -v ON_ERROR_STOP=1 ` +
        `-v superuser_password_file=${world.run}/superuser.pw -v app_password_file=${world.run}/app.pw ` +
        `-f ${world.root}/config/recovery.sql`,
    );
    expect(read(join(world.log, "psql.sql"))).toBe(RECOVERY_SQL);
    expect(read(join(world.log, "superuser.pw"))).toBe("su:pw\\x");
    expect(read(join(world.log, "app.pw"))).toBe(`it's "app" $HOME \`id\``);
    expect(existsSync(join(world.run, "superuser.pw"))).toBe(false);
    expect(existsSync(join(world.run, "app.pw"))).toBe(false);
    expect(programs(world)).not.toContain("initdb");
    expect(read(join(world.pgdata, "postgresql.auto.conf"))).toBe("work_mem = '8MB'\n");
  });

  it("fails without the app password, before restoring anything", () => {
    rmSync(join(world.root, "credentials", "app-password"));
    const r = restore();
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${world.root}/credentials/app-password must be set`);
    expect(programs(world)).not.toContain("pgbackrest");
  });
});

describe("the SQL files the entrypoint feeds PostgreSQL", () => {
  const statements = (sql: string) =>
    sql.split("\n").filter(line => line.trim() !== "" && !line.startsWith("--"));

  it("bootstrap.sql: one statement per line, nothing psql-only (single-user mode), roles.sql pasted in", () => {
    for (const line of statements(BOOTSTRAP_SQL)) expect(line).toMatch(/^[A-Z].*;$/);
    expect(BOOTSTRAP_SQL).toContain(ROLES_SQL);
  });

  it("recovery.sql: roles.sql pasted in", () => {
    expect(RECOVERY_SQL).toContain(ROLES_SQL);
    expect(RECOVERY_SQL).not.toMatch(/^\\ir /m);
  });

  it.each([
    ["bootstrap.sql", BOOTSTRAP_SQL],
    ["recovery.sql", RECOVERY_SQL],
  ])("%s: every TypeScript constant written in", (_, sql) => {
    expect(sql).not.toMatch(/\{\{\w+\}\}/);
  });

  it("names only settings and psql variables the entrypoint sets", () => {
    const settings = [...BOOTSTRAP_SQL.matchAll(/current_setting\('(pgkeeper\.\w+)'\)/g)];
    const variables = [...RECOVERY_SQL.matchAll(/:'(\w+)'/g)];
    expect(settings.length + variables.length).toBe(3);
    for (const [, name] of settings) expect(ENTRYPOINT_SH).toContain(`-c ${name}=`);
    for (const [, name] of variables) expect(ENTRYPOINT_SH).toContain(`-v ${name}=`);
  });
});

describe("entrypoint.sh after a failover or switchover (/topology/primary)", () => {
  it.each<[string, string, boolean, string[]]>([
    ["still the designated primary: starts as it is", "orders-0", false, ["postgres"]],
    ["a standby already: starts as it is", "orders-2", true, ["postgres"]],
    ["no topology yet: starts as it is", "", false, ["postgres"]],
    [
      "a former primary: rewinds, then starts as a standby",
      "orders-2",
      false,
      ["psql", "psql", "pg_rewind", "postgres"],
    ],
  ])("%s", (_, primary, standby, expected) => {
    if (primary) designate(primary);
    initialise(standby);
    const r = run(world, ENTRYPOINT_SH);
    expect(r.status).toBe(0);
    expect(programs(world)).toEqual(expected);
    if (expected.includes("pg_rewind")) {
      expect(existsSync(join(world.pgdata, "standby.signal"))).toBe(true);
      expect(r.stderr).toContain("orders-2 is the primary now");
    }
  });

  it("rewinds from the primary behind <db>-rw with the passfile, after crash recovery if needed", () => {
    designate("orders-1");
    initialise(false);
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    const rewind = calls(world).find(c => c.startsWith("pg_rewind"))!;
    expect(rewind).toBe(
      `pg_rewind --target-pgdata=${world.pgdata} --config-file=${world.root}/config/postgresql.conf ` +
        "--source-server=host=orders-rw port=5432 dbname=postgres user=streaming_replica sslmode=verify-full sslrootcert=/tls/server-ca.crt sslcert=/tls/replication.crt sslkey=/tls/replication.key connect_timeout=5 --progress",
    );
    expect(calls(world).find(c => c.startsWith("psql"))).toContain("-d host=orders-rw");
  });

  it("checkpoints the primary before pg_rewind, so a just-promoted one shows its new timeline", () => {
    designate("orders-1");
    initialise(false);
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    const [, checkpoint, rewind] = calls(world);
    expect(checkpoint).toBe(
      "psql -d host=orders-rw port=5432 dbname=postgres user=streaming_replica sslmode=verify-full sslrootcert=/tls/server-ca.crt sslcert=/tls/replication.crt sslkey=/tls/replication.key connect_timeout=5 -w -XAtq -c SELECT pgkeeper.checkpoint()",
    );
    expect(rewind).toMatch(/^pg_rewind /);
  });

  it("removes a killed postmaster's lock file before pg_rewind (its PID is alive in the new container)", () => {
    designate("orders-1");
    initialise(false);
    writeFileSync(join(world.pgdata, "postmaster.pid"), "1\n");
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    expect(calls(world).join("\n")).not.toContain("pg_rewind saw postmaster.pid");
    expect(programs(world)).toEqual(["psql", "psql", "pg_rewind", "postgres"]);
  });

  it("waits and tries again when the checkpoint fails (the primary moved or went away)", () => {
    designate("orders-1");
    initialise(false);
    writeFileSync(join(world.log, "checkpoint-fails"), "1");
    const r = run(world, ENTRYPOINT_SH);
    expect(r.status).toBe(0);
    expect(programs(world)).toEqual([
      "psql",
      "psql",
      "sleep",
      "psql",
      "psql",
      "pg_rewind",
      "postgres",
    ]);
    expect(r.stderr).toContain("Waiting for the primary on orders-rw");
  });

  it("waits until <db>-rw leads to a writable primary before rewinding", () => {
    designate("orders-1");
    initialise(false);
    writeFileSync(join(world.log, "not-writable"), "2");
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    expect(programs(world)).toEqual([
      "psql",
      "sleep",
      "psql",
      "sleep",
      "psql",
      "psql",
      "pg_rewind",
      "postgres",
    ]);
  });

  it("clones the primary again when pg_rewind fails", () => {
    designate("orders-1");
    initialise(false);
    writeFileSync(join(world.pgdata, "diverged"), "x");
    const r = run(world, ENTRYPOINT_SH, [], { STUB_REWIND_RC: "1" });
    expect(r.status).toBe(0);
    expect(programs(world)).toEqual(["psql", "psql", "pg_rewind", "pg_basebackup", "postgres"]);
    expect(existsSync(join(world.pgdata, "diverged"))).toBe(false);
    expect(existsSync(join(world.pgdata, "standby.signal"))).toBe(true);
    expect(r.stderr).toContain("pg_rewind failed; cloning the primary instead");
  });
});

describe("entrypoint.sh heals a standby it cannot trust", () => {
  it("clones again when a previous pg_rewind did not finish", () => {
    designate("orders-1");
    initialise(true);
    writeFileSync(`${world.pgdata}.rewinding`, "");
    const r = run(world, ENTRYPOINT_SH);
    expect(r.status).toBe(0);
    expect(programs(world)).toEqual(["pg_basebackup", "postgres"]);
    expect(existsSync(`${world.pgdata}.rewinding`)).toBe(false);
    expect(r.stderr).toContain("A previous pg_rewind did not finish");
  });

  it("leaves the marker only while pg_rewind runs", () => {
    designate("orders-1");
    initialise(false);
    expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    expect(existsSync(`${world.pgdata}.rewinding`)).toBe(false);
  });

  it("counts the starts of a standby and clones again after three that never got ready", () => {
    designate("orders-0");
    mkdirSync(world.pgdata);
    writeFileSync(join(world.pgdata, "PG_VERSION"), "16\n");
    writeFileSync(join(world.pgdata, "standby.signal"), "");
    for (let i = 1; i <= 3; i++) {
      expect(run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1" }).status).toBe(0);
      expect(read(`${world.pgdata}.failed-starts`).trim()).toBe(String(i));
    }
    expect(programs(world)).toEqual(["postgres", "postgres", "postgres"]);
    const r = run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1" });
    expect(r.stderr).toContain("failed to start 3 times in a row");
    expect(programs(world).slice(3)).toEqual(["pg_basebackup", "postgres"]);
    expect(existsSync(`${world.pgdata}.failed-starts`)).toBe(false);
  });

  it("keeps the old data while the clone that would replace it fails (killed while retrying)", () => {
    designate("orders-0");
    initialise(true);
    writeFileSync(join(world.pgdata, "keep-me"), "the only copy so far");
    writeFileSync(`${world.pgdata}.failed-starts`, "3");
    writeFileSync(join(world.log, "fail"), "5");
    run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1", STUB_KILLED_IN_SLEEP: "1" });
    expect(programs(world)).toEqual(["pg_basebackup", "sleep"]);
    expect(read(join(world.pgdata, "keep-me"))).toBe("the only copy so far");
  });

  it("swaps the clone in once complete, leaving nothing of the old data behind", () => {
    designate("orders-0");
    initialise(true);
    writeFileSync(join(world.pgdata, "stale"), "x");
    writeFileSync(`${world.pgdata}.failed-starts`, "3");
    writeFileSync(join(world.log, "fail"), "1");
    expect(run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1" }).status).toBe(0);
    expect(programs(world)).toEqual(["pg_basebackup", "sleep", "pg_basebackup", "postgres"]);
    expect(existsSync(join(world.pgdata, "stale"))).toBe(false);
    expect(existsSync(join(world.pgdata, "standby.signal"))).toBe(true);
    expect(existsSync(`${world.pgdata}.old`)).toBe(false);
    expect(existsSync(`${world.pgdata}.clone`)).toBe(false);
  });

  it("undoes a swap cut short: the previous data directory comes back", () => {
    designate("orders-0");
    mkdirSync(`${world.pgdata}.old`);
    writeFileSync(join(`${world.pgdata}.old`, "PG_VERSION"), "16\n");
    writeFileSync(join(`${world.pgdata}.old`, "standby.signal"), "");
    writeFileSync(join(`${world.pgdata}.old`, "keep-me"), "x");
    const r = run(world, ENTRYPOINT_SH, [], { POD_NAME: "orders-1" });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain("keeping the previous one");
    expect(programs(world)).toEqual(["postgres"]);
    expect(existsSync(join(world.pgdata, "keep-me"))).toBe(true);
  });

  it("never counts (or re-clones) a primary's starts", () => {
    designate("orders-0");
    initialise(false);
    for (let i = 0; i < 5; i++) expect(run(world, ENTRYPOINT_SH).status).toBe(0);
    expect(programs(world)).toEqual(Array(5).fill("postgres"));
  });
});

describe("probe.sh", () => {
  /** A data directory the probe recognises as this instance's. */
  const withData = () => {
    mkdirSync(world.pgdata, { recursive: true });
    writeFileSync(join(world.pgdata, "PG_VERSION"), "15\n");
  };

  it("ready: not while a restore runs beside PGDATA (no PG_VERSION yet), without asking the server", () => {
    const r = run(world, PROBE_SH, ["ready"], { STUB_ISREADY_RC: "0" });
    expect(r.status).toBe(1);
    expect(calls(world)).toEqual([]);
  });

  it.each([
    ["accepting", "0", 0],
    ["rejecting", "1", 1],
    ["not answering", "2", 2],
  ])("ready: %s → exit %p", (_, rc, status) => {
    withData();
    const r = run(world, PROBE_SH, ["ready"], { STUB_ISREADY_RC: rc });
    expect(r.status).toBe(status);
    expect(calls(world)).toEqual([`pg_isready -q -h ${world.run} -p 5432`]);
  });

  it.each([
    ["running", true, "0", [`pg_ctl stop -D PGDATA -m fast -W`]],
    ["running, pg_ctl fails", true, "1", [`pg_ctl stop -D PGDATA -m fast -W`]],
    ["not started (initdb or clone under way)", false, "0", []],
  ])("stop: %s", (_, running, rc, expected) => {
    mkdirSync(world.pgdata);
    if (running) writeFileSync(join(world.pgdata, "postmaster.pid"), "1\n");
    const r = run(world, PROBE_SH, ["stop"], { STUB_PGCTL_RC: rc });
    expect(r.status).toBe(0);
    expect(calls(world)).toEqual(expected.map(c => c.replace("PGDATA", world.pgdata)));
  });

  it.each([
    ["accepting: the standby started fine, its failed starts are forgotten", "0", false],
    ["not answering: still counted", "2", true],
  ])("ready, %s", (_, rc, kept) => {
    withData();
    writeFileSync(`${world.pgdata}.failed-starts`, "2\n");
    run(world, PROBE_SH, ["ready"], { STUB_ISREADY_RC: rc });
    expect(existsSync(`${world.pgdata}.failed-starts`)).toBe(kept);
  });

  it("rejects an unknown command", () => {
    expect(run(world, PROBE_SH, ["bogus"]).status).toBe(2);
  });
});

describe("pgbackrest-server.sh", () => {
  /** Resolves once `ready()` holds, polling; fails after 10 s. */
  const until = async (what: string, ready: () => boolean): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!ready()) {
      if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
      await new Promise(r => setTimeout(r, 20));
    }
  };

  /**
   * The wrapper over a stub `pgbackrest server` that logs its start and each SIGHUP to
   * `servers`, exits 0 on SIGTERM and, once `exit-now` exists, ends by itself.
   */
  async function withSidecar(
    run: (ctx: {
      dir: string;
      servers: () => string[];
      child: ReturnType<typeof spawn>;
      exited: Promise<number | null>;
    }) => Promise<void>,
  ): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), "pgkeeper-sidecar-"));
    let child: ReturnType<typeof spawn> | undefined;
    try {
      mkdirSync(join(dir, "bin"));
      const stub = join(dir, "bin", "pgbackrest");
      writeFileSync(
        stub,
        [
          "#!/bin/sh",
          'echo "start $*" >>"$LOG/servers"',
          "trap 'echo reload >>\"$LOG/servers\"' HUP",
          "trap 'exit 0' TERM",
          // Ends with its directory too: a failed test leaves no process behind.
          'while [ -d "$LOG" ] && [ ! -e "$LOG/exit-now" ]; do /bin/sleep 0.05; done',
          'rm -f "$LOG/exit-now"',
          "",
        ].join("\n"),
      );
      chmodSync(stub, 0o755);
      for (const file of ["server.crt", "ca.crt"]) writeFileSync(join(dir, file), `old ${file}`);
      const script = join(dir, "pgbackrest-server.sh");
      writeFileSync(script, PGBACKREST_SERVER_SH);
      const servers = () =>
        existsSync(join(dir, "servers")) ? read(join(dir, "servers")).trim().split("\n") : [];
      child = spawn("/bin/sh", [script], {
        env: {
          PATH: `${join(dir, "bin")}:/usr/bin:/bin`,
          LOG: dir,
          PGKEEPER_CONFIG_DIR: dir,
          PGKEEPER_RUN_DIR: dir,
          PGKEEPER_TLS_CERT: join(dir, "server.crt"),
          PGKEEPER_TLS_CA: join(dir, "ca.crt"),
          PGKEEPER_TLS_CHECK_SECONDS: "0.05",
        },
        stdio: "ignore",
      });
      const exited = new Promise<number | null>(r => child?.once("exit", code => r(code)));
      await until("the server started", () => servers().length === 1);
      await run({ dir, servers, child, exited });
    } finally {
      if (child?.exitCode === null) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const START = (dir: string) => `start --config=${dir}/pgbackrest.conf server`;

  it.each([
    ["its certificate", "server.crt"],
    ["the CAs it trusts (a step of moving to another CA)", "ca.crt"],
  ])(
    "has the server reload when %s changes (SIGHUP: no restart, so no connection in flight ends), and stops with SIGTERM",
    (_, changed) =>
      withSidecar(async ({ dir, servers, child, exited }) => {
        writeFileSync(join(dir, changed), `new ${changed}`);
        await until("the server reloaded", () => servers().length === 2);
        // Unchanged since: no second reload, and the one server was never started again.
        await new Promise(r => setTimeout(r, 300));
        expect(servers()).toEqual([START(dir), "reload"]);
        child.kill("SIGTERM");
        expect(await exited).toBe(0);
      }),
    30_000,
  );

  it(
    "starts the server again when it ends by itself",
    () =>
      withSidecar(async ({ dir, servers, child, exited }) => {
        writeFileSync(join(dir, "exit-now"), "");
        await until("the server started again", () => servers().length === 2);
        expect(servers()).toEqual([START(dir), START(dir)]);
        child.kill("SIGTERM");
        expect(await exited).toBe(0);
      }),
    30_000,
  );
});

describe("the object store's keys reach pgBackRest from the credential files, in its own environment only", () => {
  let dir: string;
  const KEYS_STUB = [
    "#!/bin/sh",
    // The command: the first argument that is no option.
    'for a in "$@"; do case "$a" in --*) ;; *) cmd=$a; break ;; esac; done',
    'echo "$cmd key=${PGBACKREST_REPO1_S3_KEY:-} secret=${PGBACKREST_REPO1_S3_KEY_SECRET:-}" >>"$LOG/calls"',
    "",
  ].join("\n");
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pgkeeper-keys-"));
    for (const d of ["bin", "credentials", "log", "work", "config"]) mkdirSync(join(dir, d));
    writeFileSync(join(dir, "bin", "pgbackrest"), KEYS_STUB, { mode: 0o755 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const runScript = (script: string, args: string[], env: Record<string, string>) =>
    spawnSync("/bin/sh", ["-c", script, "script", ...args], {
      encoding: "utf8",
      timeout: 20_000,
      env: {
        PATH: `${join(dir, "bin")}:/usr/bin:/bin`,
        LOG: join(dir, "log"),
        PGKEEPER_CONFIG_DIR: join(dir, "config"),
        PGKEEPER_RUN_DIR: join(dir, "work"),
        PGKEEPER_CREDENTIALS_DIR: join(dir, "credentials"),
        ...env,
      },
    });
  const calls = (): string[] =>
    existsSync(join(dir, "log", "calls"))
      ? readFileSync(join(dir, "log", "calls"), "utf8")
          .trim()
          .split("\n")
      : [];
  const keyFiles = (prefix: string) => {
    writeFileSync(join(dir, "credentials", `${prefix}-s3-key`), "id-from-file\n");
    writeFileSync(join(dir, "credentials", `${prefix}-s3-key-secret`), "secret-from-file");
  };

  it("archive.sh: repository 1's keys from their files (a trailing newline dropped)", () => {
    keyFiles("repo1");
    expect(runScript(ARCHIVE_SH, ["pg_wal/000000010000000000000001"], {}).status).toBe(0);
    expect(calls()).toEqual(["archive-push key=id-from-file secret=secret-from-file"]);
  });

  it("archive.sh in a pod of an earlier pgkeeper (no files): the keys its environment has", () => {
    const legacy = { PGBACKREST_REPO1_S3_KEY: "old-id", PGBACKREST_REPO1_S3_KEY_SECRET: "old-s" };
    expect(runScript(ARCHIVE_SH, ["pg_wal/000000010000000000000001"], legacy).status).toBe(0);
    expect(calls()).toEqual(["archive-push key=old-id secret=old-s"]);
  });

  it("restore-wal.sh: the source's keys, from their own files, as repository 1's", () => {
    keyFiles("repo1");
    writeFileSync(join(dir, "credentials", "source-s3-key"), "source-id");
    writeFileSync(join(dir, "credentials", "source-s3-key-secret"), "source-secret");
    expect(
      runScript(RESTORE_WAL_SH, ["000000010000000000000001", "pg_wal/RECOVERYXLOG"], {}).status,
    ).toBe(0);
    expect(calls()).toEqual(["archive-get key=source-id secret=source-secret"]);
  });

  it("backup-job.sh: each pgbackrest command gets the keys from the files", () => {
    keyFiles("repo1");
    const result = join(dir, "log", "result");
    runScript(BACKUP_JOB_SH, [], {
      PGKEEPER_PGBACKREST_CONF: "[global]",
      PGKEEPER_WORK_DIR: join(dir, "work"),
      PGKEEPER_RESULT_FILE: result,
    });
    // The stub prints no backup label: the job stops after `backup`, having given both the keys.
    expect(calls()).toEqual([
      "stanza-create key=id-from-file secret=secret-from-file",
      "backup key=id-from-file secret=secret-from-file",
    ]);
  });

  it("backup-job.sh without the key files: fails before pgBackRest, saying which file is missing", () => {
    const result = join(dir, "log", "result");
    const r = runScript(BACKUP_JOB_SH, [], {
      PGKEEPER_PGBACKREST_CONF: "[global]",
      PGKEEPER_WORK_DIR: join(dir, "work"),
      PGKEEPER_RESULT_FILE: result,
    });
    expect(r.status).toBe(1);
    expect(calls()).toEqual([]);
    expect(JSON.parse(readFileSync(result, "utf8"))).toEqual({
      error: `ERROR: the object store's key file ${dir}/credentials/repo1-s3-key is missing`,
    });
  });
});
