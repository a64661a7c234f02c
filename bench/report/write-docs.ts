/**
 * Rewrites the generated sections of the docs from the committed results (npm run bench:report),
 * until the project's docs generator takes BENCH_SECTIONS over. Only the text between markers
 * changes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { replaceGenerated } from "./markers";
import { BENCH_SECTIONS } from "./sections";

const repo = join(__dirname, "..", "..");

for (const file of new Set(BENCH_SECTIONS.map(s => s.file))) {
  const path = join(repo, file);
  const doc = BENCH_SECTIONS.filter(s => s.file === file).reduce(
    (text, s) => replaceGenerated(text, s.name, s.render()),
    readFileSync(path, "utf8"),
  );
  writeFileSync(path, doc);
  console.log(`${file}: ${BENCH_SECTIONS.filter(s => s.file === file).length} sections written`);
}
