/**
 * Generates the PostgreSQL parameter catalogs (capabilities/database/api/parameter-catalog/pg<N>.json)
 * from the servers pgkeeper ships: each major's `pg_settings`, read from a throwaway server of
 * that major's instance image (hack/images/postgres.sh builds it; hack/images/rootfs.ts unpacks
 * it and runs its binaries under chroot, so nothing is installed on this machine). 14 and 16 have
 * no image: hack/parameter-catalog/from-source.ts reads their catalogs from PostgreSQL's GUC
 * tables instead.
 *
 * Usage (as root): npx ts-node hack/parameter-catalog/generate.ts [major…]   (default: 15 17 18)
 * The drift test (test/postgres/parameter-catalog.test.ts) compares each catalog with its image's
 * server in the postgres tier.
 */
import { execFileSync, spawn } from "node:child_process";
import { chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { IMAGE_VERSIONS } from "../../capabilities/database/lib/config";
import { IMAGE_UID, chrootCommand, imageRootfs } from "../images/rootfs";
import { CATALOG_QUERY, catalogFromRows } from "./query";

const ROOT = path.resolve(__dirname, "../..");
const OUT_DIR = path.join(ROOT, "capabilities/database/api/parameter-catalog");
const PORT = 25399;

/**
 * pg_settings of the server listening on loopback, once it answers (within 10 s). Over TCP: a
 * Unix socket path under the unpacked file system can pass the 107 bytes a socket path may have.
 */
async function settingsOf() {
  const args = ["-h", "127.0.0.1", "-p", String(PORT), "-U", "postgres", "-XAtq"];
  args.push("-c", CATALOG_QUERY);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const out = execFileSync("psql", args, {
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
  const rootfs = imageRootfs(major);
  const dir = mkdtempSync(path.join(rootfs, "var/tmp/pgk-catalog-"));
  chownSync(dir, IMAGE_UID, IMAGE_UID);
  const inner = dir.slice(rootfs.length);
  const run = (program: string, args: string[]) => chrootCommand(rootfs, major, program, args);
  try {
    const initdb = run("initdb", [
      ...["-D", `${inner}/data`, "-U", "postgres", "--auth=trust", "--no-sync"],
    ]);
    execFileSync(initdb.command, initdb.args, { stdio: "ignore" });
    const postgres = run("postgres", [
      ...["-D", `${inner}/data`, "-p", String(PORT), "-c", "unix_socket_directories="],
      ...["-c", "listen_addresses=127.0.0.1"],
    ]);
    const server = spawn(postgres.command, postgres.args, { stdio: "ignore" });
    try {
      const rows = await settingsOf();
      return JSON.stringify(catalogFromRows(major, rows), null, 2) + "\n";
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
  for (const major of majors.length > 0 ? majors : IMAGE_VERSIONS) {
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
