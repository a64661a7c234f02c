/**
 * bench/profile: where a V8 CPU profile of the watcher spent its busy time, by source file and by
 * function, through the source map of the bundle it ran (`dist/pepr-pgkeeper.js.map`, or the
 * `.map` beside the profiled script). Write a profile with
 * `npm run bench:compare -- --only pgkeeper --n 1000 --cpu-prof <dir>`, then
 * `npm run bench:profile -- <dir>/<file>.cpuprofile [--top 25]`.
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import type { CpuProfile, Origin, Resolve, Share } from "../lib/cpu-profile";
import { summarize } from "../lib/cpu-profile";
import { runMain } from "../lib/main";

/** A resolver reading each bundle's `.map` once; frames of files without one stay unresolved. */
function sourceMapResolver(): Resolve {
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (url: string): SourceMap | undefined => {
    if (!maps.has(url)) {
      const file = url.startsWith("file://") ? fileURLToPath(url) : url;
      const mapFile = `${file}.map`;
      maps.set(
        url,
        existsSync(mapFile)
          ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8")) as never)
          : undefined,
      );
    }
    return maps.get(url);
  };
  return (url, line, column): Origin | undefined => {
    const entry = mapOf(url)?.findEntry(line, column) as
      | { originalSource?: string; originalLine?: number; name?: string }
      | undefined;
    if (!entry?.originalSource) return undefined;
    return {
      file: entry.originalSource,
      name: entry.name ?? "",
      line: (entry.originalLine ?? 0) + 1,
    };
  };
}

const table = (title: string, rows: Share[], top: number): string =>
  [
    `\n${title}`,
    ...rows
      .slice(0, top)
      .map(
        r =>
          `${(r.share * 100).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.key}`,
      ),
  ].join("\n");

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error("usage: npm run bench:profile -- <file>.cpuprofile [--top N]");
  const topAt = process.argv.indexOf("--top");
  const top = topAt > 0 ? Number(process.argv[topAt + 1]) : 25;
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const s = summarize(profile, sourceMapResolver());
  console.log(
    `${file}: busy ${(s.busyMs / 1000).toFixed(1)} s, idle ${(s.idleMs / 1000).toFixed(1)} s`,
  );
  console.log(table("self time by file (share of busy)", s.byFile, top));
  console.log(table("self time by function", s.byFunction, top));
}

runMain(main);
