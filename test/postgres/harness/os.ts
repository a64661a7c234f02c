/**
 * Operating-system plumbing for the PostgreSQL test servers: binaries, the account they run as
 * (PostgreSQL refuses to run as root), free loopback ports, and the processes of a server.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

export const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
export const bin = (name: string): string => path.join(PG_BIN, name);

/** The major of the servers in PG_BIN ("15"), as `postgres --version` says it. */
export function pgMajor(): string {
  const version = execFileSync(bin("postgres"), ["--version"], { encoding: "utf8" });
  const major = /\(PostgreSQL\) (\d+)/.exec(version)?.[1];
  if (!major) throw new Error(`cannot read a major in ${JSON.stringify(version)}`);
  return major;
}

export interface RunAs {
  uid?: number;
  gid?: number;
}

/** As root: the `postgres` account (created by Debian's postgresql package); otherwise ourselves. */
export function serverAccount(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string): number =>
    Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    throw new Error("running as root needs a 'postgres' account: apt-get install postgresql-15");
  }
}

/**
 * The range the test servers may use, kept clear of a developer's own PostgreSQL on 5432.
 * bench/probe, which runs a hundred servers, widens it with PGKEEPER_PG_LAST_PORT.
 */
const FIRST_PORT = 25432;
const LAST_PORT = Number(process.env.PGKEEPER_PG_LAST_PORT ?? 25499);
const handedOut = new Set<number>();

const canListen = (port: number): Promise<boolean> =>
  new Promise(resolve => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

/** A port in FIRST_PORT..LAST_PORT nothing listens on and this process has not handed out before. */
export async function freePort(): Promise<number> {
  for (let port = FIRST_PORT; port <= LAST_PORT; port++) {
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${FIRST_PORT}..${LAST_PORT}`);
}

/** Direct children of `pid`, from /proc (a postmaster's backends and auxiliary processes). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat is the parent; the command name before it may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // the process exited while we looked
    }
  }
  return children;
}
