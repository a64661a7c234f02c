/**
 * Writes the generated files of capabilities/database/specs/scripts/ (layout.sh, and the modules
 * that carry each script and SQL file as the pod receives it) from the real `.sh` and `.sql`
 * files there; hack/instance-scripts.ts says why and how. Removes a generated module whose source
 * is gone. `--check` exits 1 when a file is stale instead.
 *   npm run scripts:generate            # rewrite
 *   npm run scripts:generate -- --check # verify only
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GENERATED_MARK, renderGeneratedFiles, SCRIPTS_DIR } from "./instance-scripts";

const dir = join(__dirname, "..", SCRIPTS_DIR);
const rendered = renderGeneratedFiles();
const current = (file: string): string | undefined =>
  existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8") : undefined;
const stale = Object.keys(rendered).filter(file => current(file) !== rendered[file]);
const orphans = readdirSync(dir).filter(
  file => !(file in rendered) && (current(file) ?? "").includes(GENERATED_MARK),
);

if (process.argv.includes("--check")) {
  for (const file of [...stale, ...orphans]) console.error(`${SCRIPTS_DIR}/${file} is stale`);
  if (stale.length + orphans.length > 0) {
    console.error("run npm run scripts:generate");
    process.exit(1);
  }
  console.log(`${SCRIPTS_DIR}: the generated files are up to date`);
} else {
  for (const file of stale) writeFileSync(join(dir, file), rendered[file]);
  for (const file of orphans) rmSync(join(dir, file));
  console.log(`${SCRIPTS_DIR}: wrote ${stale.length} files, removed ${orphans.length}`);
}
