/**
 * Rewrites the generated sections of the docs from the committed results (npm run bench:report
 * [-- BENCH...], every bench by default), until the project's docs generator takes BENCH_SECTIONS
 * over. Only the text between markers changes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { replaceGenerated } from "./markers";
import { BENCH_SECTIONS } from "./sections";

const repo = join(__dirname, "..", "..");
const only = process.argv.slice(2).map(name => `bench ${name}`);
const sections = BENCH_SECTIONS.filter(s => only.length === 0 || only.includes(s.name));

for (const file of new Set(sections.map(s => s.file))) {
  const path = join(repo, file);
  const mine = sections.filter(s => s.file === file);
  const doc = mine.reduce(
    (text, s) => replaceGenerated(text, s.name, s.render()),
    readFileSync(path, "utf8"),
  );
  writeFileSync(path, doc);
  console.log(`${file}: ${mine.map(s => s.name).join(", ")} written`);
}
