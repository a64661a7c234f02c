/**
 * Generates the PostgreSQL parameter catalogs (capabilities/database/api/parameter-catalog/pg<N>.json)
 * from the servers themselves: each major's `pg_settings`, read from a throwaway server.
 *
 * - 15: Debian 12's own postgresql-15 (/usr/lib/postgresql/15/bin; apt-get install postgresql-15).
 * - 17: Debian 13's postgresql-17 and 18: Debian forky's postgresql-18, each unpacked with its
 *   suite's libraries by hack/parameter-catalog/unpack-debian.sh (trixie 17, forky 18; the
 *   programs are pointed at the suite's loader and libraries with patchelf, so nothing is
 *   installed on this Debian 12 machine).
 * - 14 and 16 have no Debian server here: hack/parameter-catalog/from-source.ts reads their
 *   catalogs from PostgreSQL's GUC tables instead.
 *
 * Usage: npx ts-node hack/parameter-catalog/generate.ts [major…]   (default: 15 17 18)
 * The drift test (test/postgres/parameter-catalog.test.ts) compares pg15.json with the server
 * the postgres tier runs.
 */
import { execFileSync, spawn } from "node:child_process";
import { chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CATALOG_QUERY, catalogFromRows } from "./query";

const ROOT = path.resolve(__dirname, "../..");
const OUT_DIR = path.join(ROOT, "capabilities/database/api/parameter-catalog");
const TRIXIE = process.env.PGKEEPER_TRIXIE_ROOT ?? "/var/tmp/pgkeeper-trixie";
const FORKY = process.env.PGKEEPER_FORKY_ROOT ?? "/var/tmp/pgkeeper-forky";
const BIN: Record<string, string> = {
  "15": "/usr/lib/postgresql/15/bin",
  "17": `${TRIXIE}/usr/lib/postgresql/17/bin`,
  "18": `${FORKY}/usr/lib/postgresql/18/bin`,
};
const PORT = 25399;

function account(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
  return { uid: id("-u"), gid: id("-g") };
}

/** pg_settings of the server listening in `dir`, once it answers (within 10 s). */
async function settingsOf(dir: string, runAs: { uid?: number; gid?: number }) {
  const args = ["-h", dir, "-p", String(PORT), "-U", "postgres", "-XAtq", "-c", CATALOG_QUERY];
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const out = execFileSync("psql", args, {
        ...runAs,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
      return JSON.parse(out);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise(resolve => setTimeout(resolve, 100));
    }
  }
}

async function catalogOf(major: string): Promise<string> {
  const bin = BIN[major];
  if (!bin) throw new Error(`no server for PostgreSQL ${major} on this machine`);
  const dir = mkdtempSync(path.join(tmpdir(), `pgk-catalog-${major}-`));
  const runAs = account();
  if (runAs.uid !== undefined) chownSync(dir, runAs.uid, runAs.gid!);
  const data = path.join(dir, "data");
  try {
    execFileSync(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--no-sync"], {
      ...runAs,
      stdio: "ignore",
    });
    const server = spawn(
      path.join(bin, "postgres"),
      ["-D", data, "-p", String(PORT), "-k", dir, "-c", "listen_addresses="],
      { ...runAs, stdio: "ignore" },
    );
    try {
      return JSON.stringify(catalogFromRows(major, await settingsOf(dir, runAs)), null, 2) + "\n";
    } finally {
      server.kill("SIGINT");
      await new Promise(resolve => server.once("exit", resolve));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const majors = process.argv.slice(2);
  for (const major of majors.length > 0 ? majors : Object.keys(BIN)) {
    const file = path.join(OUT_DIR, `pg${major}.json`);
    writeFileSync(file, await catalogOf(major));
    execFileSync("npx", ["prettier", "--write", file], { cwd: ROOT, stdio: "ignore" });
    console.log(`wrote ${path.relative(ROOT, file)}`);
  }
}

main().catch(error => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
