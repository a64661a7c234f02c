/**
 * Writes deploy/crd.yaml from the TypeScript API source. `--check` exits 1 when the file is stale.
 *   npm run crd:generate            # rewrite
 *   npm run crd:generate -- --check # verify only
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderCrdYaml } from "./crd-yaml";

const target = join(__dirname, "..", "deploy", "crd.yaml");
const rendered = renderCrdYaml();

if (process.argv.includes("--check")) {
  const current = readFileSync(target, "utf8");
  if (current !== rendered) {
    console.error(`${target} is stale: run npm run crd:generate`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  writeFileSync(target, rendered);
  console.log(`wrote ${target}`);
}
