/**
 * Where from-source.ts finds a PostgreSQL source tree, and what it reads there: the GUC table
 * file, the version configure states, the object-like #defines of the headers (for bounds such
 * as MAX_STATISTICS_TARGET) and every config_enum_entry array (some live beside their module).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { activeLines, stripComments } from "./c-preprocess";
import { type EnumOption, enumOptionArrays } from "./guc-tables";

/** A tree from `git archive` of a commit (the fetch tool's bare mirrors have no work tree). */
export function treeFromGit(gitDir: string, commit: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "pgk-guc-src-"));
  execFileSync("sh", [
    "-c",
    `git --git-dir="$0" archive "$1" configure src | tar -x -C "$2"`,
    gitDir,
    commit,
    dir,
  ]);
  return dir;
}

export const tableFile = (tree: string): string =>
  ["guc_tables.c", "guc.c"]
    .map(file => path.join(tree, "src/backend/utils/misc", file))
    .find(file => existsSync(file) && /ConfigureNamesInt\s*\[/.test(readFileSync(file, "utf8"))) ??
  (() => {
    throw new Error(`no GUC tables under ${tree}`);
  })();

export function packageVersion(tree: string): string {
  const match = /^PACKAGE_VERSION='([^']+)'/m.exec(
    readFileSync(path.join(tree, "configure"), "utf8"),
  );
  if (!match) throw new Error(`no PACKAGE_VERSION in ${tree}/configure`);
  return match[1];
}

/** git's blob id of a file, so a catalog names exactly the table it was read from. */
export const blobId = (file: string): string =>
  execFileSync("git", ["hash-object", file], { encoding: "utf8" }).trim();

function filesUnder(dir: string, extension: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(entry => entry.isFile() && entry.name.endsWith(extension))
    .map(entry => path.join(entry.parentPath, entry.name));
}

/** Object-like #defines (first one wins; debian-build.ts's constants override the tricky ones). */
export function headerMacros(tree: string, extra: string[]): Map<string, string> {
  const macros = new Map<string, string>();
  for (const file of [...extra, ...filesUnder(path.join(tree, "src/include"), ".h")]) {
    const text = stripComments(readFileSync(file, "utf8")).replace(/\\\n/g, " ");
    for (const match of text.matchAll(/^\s*#\s*define\s+(\w+)[ \t]+(.+?)\s*$/gm)) {
      if (!macros.has(match[1])) macros.set(match[1], match[2]);
    }
  }
  return macros;
}

/** Every enum options array of the backend, as this build compiles it. */
export function allEnumArrays(tree: string, defined: Set<string>): Map<string, EnumOption[]> {
  const arrays = new Map<string, EnumOption[]>();
  for (const file of filesUnder(path.join(tree, "src/backend"), ".c")) {
    const text = readFileSync(file, "utf8");
    if (!text.includes("config_enum_entry")) continue;
    for (const [name, values] of enumOptionArrays(activeLines(text, defined))) {
      if (!arrays.has(name)) arrays.set(name, values);
    }
  }
  return arrays;
}
