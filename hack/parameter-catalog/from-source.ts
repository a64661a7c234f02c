/**
 * Builds a parameter catalog from PostgreSQL's own GUC tables, for the majors no server of which
 * runs here (14 and 16), and checks that reading against the majors that have one.
 *
 *   npx ts-node -T hack/parameter-catalog/from-source.ts 14 16          write pg14.json, pg16.json
 *   npx ts-node -T hack/parameter-catalog/from-source.ts --check-against 15 18
 *       read 15's and 18's tables and compare with pg15.json/pg18.json (from their servers'
 *       pg_settings, the same minor); exits 1 on any difference.
 *
 * Trees: sources.ts says where each major's comes from (hack/parameter-catalog/get-sources.sh
 * unpacks Debian's; `--tree DIR` reads another).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type {
  ParameterCatalog,
  ParameterEntry,
} from "../../capabilities/database/api/parameter-catalog/types";
import { activeLines } from "./c-preprocess";
import { CONSTANTS, DEFINED, debianPatchParameters } from "./debian-build";
import { gucEntries } from "./guc-tables";
import { LATER_MINORS, SOURCES } from "./sources";
import {
  allEnumArrays,
  blobId,
  headerMacros,
  packageVersion,
  tableFile,
  treeFromGit,
} from "./source-tree";

const ROOT = path.resolve(__dirname, "../..");
const OUT_DIR = path.join(ROOT, "capabilities/database/api/parameter-catalog");

/** The catalog a tree's GUC tables describe, with where it came from. */
export function catalogFromTree(major: string, tree: string, origin: string): ParameterCatalog {
  const file = tableFile(tree);
  const macros = headerMacros(tree, [file]);
  const version = packageVersion(tree);
  // pg_config.h's (configure's) PG_VERSION_NUM, the bounds of server_version_num.
  const [major_, minor] = version.split(".").map(Number);
  const versionNum = major_ * 10000 + (minor || 0);
  const lookup = (name: string) =>
    name === "PG_VERSION_NUM" ? versionNum : (CONSTANTS[name] ?? macros.get(name));
  const value = (name: string) => {
    const known = lookup(name);
    return typeof known === "number" ? known : undefined;
  };
  const source = activeLines(readFileSync(file, "utf8"), DEFINED, value);
  const entries = {
    ...gucEntries(source, allEnumArrays(tree, DEFINED), lookup),
    ...debianPatchParameters(major),
  };
  const parameters: Record<string, ParameterEntry> = {};
  // pg_settings ORDER BY name in the C collation: by code unit.
  for (const name of Object.keys(entries).sort()) parameters[name] = entries[name];
  const relative = path.relative(tree, file);
  return {
    major,
    source: `${relative} of PostgreSQL ${version} (git blob ${blobId(file)}), ${origin}`,
    parameters,
  };
}

function withTree<T>(
  major: string,
  tree: string | undefined,
  use: (tree: string, origin: string) => T,
): T {
  if (tree) return use(tree, `read from ${tree}`);
  const known = SOURCES[major];
  if (!known) throw new Error(`no source tree known for PostgreSQL ${major}: give --tree DIR`);
  if (known.tree) return use(known.tree, known.origin);
  const dir = treeFromGit(known.git!, known.commit!);
  try {
    return use(dir, known.origin);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The differences between two catalogs' parameters, one line each. */
export function differences(ours: ParameterCatalog, theirs: ParameterCatalog): string[] {
  const lines: string[] = [];
  const names = new Set([...Object.keys(ours.parameters), ...Object.keys(theirs.parameters)]);
  for (const name of [...names].sort()) {
    const a = ours.parameters[name];
    const b = theirs.parameters[name];
    if (!b) lines.push(`${name}: only in the source`);
    else if (!a) lines.push(`${name}: only in pg_settings`);
    else if (JSON.stringify(a) !== JSON.stringify(b))
      lines.push(`${name}: source ${JSON.stringify(a)} != pg_settings ${JSON.stringify(b)}`);
  }
  return lines;
}

function check(major: string, tree: string | undefined): boolean {
  const server = JSON.parse(
    readFileSync(path.join(OUT_DIR, `pg${major}.json`), "utf8"),
  ) as ParameterCatalog;
  return withTree(major, tree, (dir, origin) => {
    const ours = catalogFromTree(major, dir, origin);
    const found = differences(ours, server);
    console.log(
      `PostgreSQL ${major}: ${Object.keys(ours.parameters).length} from ${ours.source}; ` +
        `${Object.keys(server.parameters).length} in pg${major}.json; ${found.length} differ`,
    );
    for (const line of found) console.log(`  ${line}`);
    return found.length === 0;
  });
}

/** Adds what later minors of the major added (sources.ts LATER_MINORS), saying so in `source`. */
function withLaterMinors(catalog: ParameterCatalog): ParameterCatalog {
  const later = LATER_MINORS[catalog.major] ?? [];
  if (later.length === 0) return catalog;
  const parameters = { ...catalog.parameters };
  for (const { name, from } of later) {
    const other = JSON.parse(
      readFileSync(path.join(OUT_DIR, `pg${from}.json`), "utf8"),
    ) as ParameterCatalog;
    parameters[name] = other.parameters[name];
  }
  const sorted = Object.fromEntries(
    Object.keys(parameters)
      .sort()
      .map(name => [name, parameters[name]]),
  );
  const added = later.map(
    ({ name, release, from }) => `${name} (from ${release}; entry as in pg${from}.json)`,
  );
  return { ...catalog, source: `${catalog.source}; plus ${added.join(", ")}`, parameters: sorted };
}

function write(major: string, tree: string | undefined): void {
  const catalog = withLaterMinors(
    withTree(major, tree, (dir, origin) => catalogFromTree(major, dir, origin)),
  );
  const file = path.join(OUT_DIR, `pg${major}.json`);
  writeFileSync(file, JSON.stringify(catalog, null, 2) + "\n");
  execFileSync("npx", ["prettier", "--write", file], { cwd: ROOT, stdio: "ignore" });
  console.log(`wrote ${path.relative(ROOT, file)} (${Object.keys(catalog.parameters).length})`);
}

function main(): void {
  const args = process.argv.slice(2);
  const treeAt = args.indexOf("--tree");
  const tree = treeAt >= 0 ? args.splice(treeAt, 2)[1] : undefined;
  const checking = args[0] === "--check-against";
  const majors = checking ? args.slice(1) : args;
  if (majors.length === 0)
    throw new Error("usage: from-source.ts [--check-against] MAJOR… [--tree DIR]");
  let clean = true;
  for (const major of majors) {
    if (checking) clean = check(major, tree) && clean;
    else write(major, tree);
  }
  if (!clean) process.exit(1);
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
