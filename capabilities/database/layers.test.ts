/**
 * The import graph of the capability, checked: every import between folders points down this
 * table, so there are no upward imports and no cycles between folders. A new folder must be given
 * its place here before anything may import it.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";

/** Lower layers never import higher ones; folders of one layer never import each other. */
export const LAYERS: Record<string, number> = {
  api: 0,
  lib: 0,
  specs: 1,
  admission: 1,
  metrics: 1,
  leader: 1,
  webhook: 1,
  cluster: 2,
  cache: 3,
  instance: 3,
  backup: 3,
  upgrade: 3,
  restart: 3,
  pki: 4,
  ha: 4,
  reconcile: 5,
  controller: 6,
  "runtime.ts": 7,
  "index.ts": 8,
};

const ROOT = __dirname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Relative module specifiers of `import … from`, `export … from` and `import(…)`. */
export function relativeImports(text: string): string[] {
  const found = text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.[^"']*)["']/g);
  return [...found].map(m => m[1]);
}

/** The unit a module belongs to: its top folder, or the file itself at the top. */
function unitOf(module: string): string {
  const [top, ...rest] = relative(ROOT, module).split(sep);
  if (rest.length > 0 || LAYERS[top] !== undefined || top.endsWith(".ts")) return top;
  return existsSync(join(ROOT, top)) ? top : `${top}.ts`; // a folder (its index.ts), or a file
}

export interface Violation {
  from: string;
  to: string;
  reason: string;
}

export function violations(
  files: { path: string; text: string }[],
  layers: Record<string, number>,
): Violation[] {
  const found: Violation[] = [];
  for (const { path, text } of files) {
    const from = unitOf(path);
    for (const spec of relativeImports(text)) {
      const to = unitOf(normalize(join(dirname(path), spec)));
      if (to === from || to.startsWith("..")) continue;
      const [a, b] = [layers[from], layers[to]];
      const where = { from: relative(ROOT, path), to: spec };
      if (a === undefined || b === undefined)
        found.push({ ...where, reason: `${a === undefined ? from : to} has no layer` });
      else if (b >= a)
        found.push({ ...where, reason: `${to} (layer ${b}) is not below ${from} (layer ${a})` });
    }
  }
  return found;
}

describe("layers of capabilities/database", () => {
  it("every import between folders points down", () => {
    const files = sources(ROOT).map(path => ({ path, text: readFileSync(path, "utf8") }));
    expect(files.length).toBeGreaterThan(50);
    expect(violations(files, LAYERS)).toEqual([]);
  });

  it("catches an upward import, a sideways one and an unplaced folder", () => {
    const file = (path: string, text: string) => ({ path: join(ROOT, path), text });
    expect(
      violations(
        [
          file("cache/x.ts", 'import { y } from "../reconcile/y";'),
          file("specs/x.ts", 'export { y } from "../admission/y";'),
          file("ha/x.ts", 'const m = import("../newfolder/m");'),
          file("reconcile/ok.ts", 'import { y } from "../ha/y";\nimport { z } from "./z";'),
        ],
        LAYERS,
      ).map(v => `${v.from}: ${v.reason}`),
    ).toEqual([
      "cache/x.ts: reconcile (layer 5) is not below cache (layer 3)",
      "specs/x.ts: admission (layer 1) is not below specs (layer 1)",
      "ha/x.ts: newfolder has no layer",
    ]);
  });
});
