/**
 * Rewrites the generated sections of the docs (sections.ts). `--check` exits 1 when one is stale.
 *   npm run docs:generate
 *   npm run docs:generate -- --check
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SECTIONS } from "./sections";
import { withSection } from "./markers";

const root = join(__dirname, "..", "..");
const check = process.argv.includes("--check");
let stale = 0;
for (const file of [...new Set(SECTIONS.map(s => s.file))]) {
  const path = join(root, file);
  const current = readFileSync(path, "utf8");
  const next = SECTIONS.filter(s => s.file === file).reduce(
    (doc, s) => withSection(doc, s.name, s.render()),
    current,
  );
  if (next === current) continue;
  if (check) {
    console.error(`${file}: generated sections are stale: run npm run docs:generate`);
    stale++;
  } else {
    writeFileSync(path, next);
    console.log(`wrote ${file}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
