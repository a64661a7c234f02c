/**
 * Where a V8 CPU profile (`node --cpu-prof`) spent its time, by source file and by function.
 * The watcher runs the minified `pepr build` bundle, so a frame's position is looked up in the
 * bundle's source map to name the file it came from. Pure: the lookup is passed in.
 */
import { descend, groupBy, map, prop, sortWith, sum } from "ramda";

/** The parts of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  }[];
  samples: number[];
  /** Microseconds since the previous sample; the first since `startTime`. */
  timeDeltas: number[];
}

/** A frame's origin: its source file and the name there. */
export interface Origin {
  file: string;
  name: string;
  line: number;
}

/** Looks a bundle position (0-based line and column) up; undefined when it has no mapping. */
export type Resolve = (url: string, line: number, column: number) => Origin | undefined;

export interface Share {
  key: string;
  ms: number;
  /** Of the busy time: the whole profile less `(idle)`. */
  share: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  byFile: Share[];
  byFunction: Share[];
}

/** V8's pseudo-frames, kept as they are: `(garbage collector)`, `(program)`, `(idle)`. */
const PSEUDO = /^\(.*\)$/;

/** Shortens a path to what says where it is: from `node_modules/<package>` or the project root. */
export function shortPath(file: string): string {
  const modules = file.lastIndexOf("node_modules/");
  if (modules >= 0) return file.slice(modules);
  return file.replace(/^.*?\/(capabilities|deploy|hack|bench|test)\//, "$1/");
}

function originOf(frame: CpuProfile["nodes"][number]["callFrame"], resolve: Resolve): Origin {
  if (PSEUDO.test(frame.functionName)) return { file: frame.functionName, name: "", line: 0 };
  const found = frame.url ? resolve(frame.url, frame.lineNumber, frame.columnNumber) : undefined;
  if (found) return { ...found, file: shortPath(found.file) };
  const file = frame.url ? shortPath(frame.url.replace(/^file:\/\//, "")) : "(native)";
  return { file, name: frame.functionName, line: frame.lineNumber + 1 };
}

const ranked = (busyMs: number, totals: Record<string, number>): Share[] =>
  sortWith<Share>([descend(prop("ms"))])(
    Object.entries(totals).map(([key, ms]) => ({ key, ms, share: busyMs ? ms / busyMs : 0 })),
  );

/** Self time per file and per function, each sample weighted by its time delta. */
export function summarize(profile: CpuProfile, resolve: Resolve): ProfileSummary {
  const origins = new Map(profile.nodes.map(n => [n.id, originOf(n.callFrame, resolve)]));
  const samples = profile.samples.map((id, i) => ({
    origin: origins.get(id) ?? { file: "(unknown)", name: "", line: 0 },
    ms: (profile.timeDeltas[i] ?? 0) / 1000,
  }));
  const idleMs = sum(samples.filter(s => s.origin.file === "(idle)").map(s => s.ms));
  const busy = samples.filter(s => s.origin.file !== "(idle)");
  const busyMs = sum(busy.map(s => s.ms));
  const total = (key: (o: Origin) => string): Record<string, number> =>
    map(
      group => sum(group.map(s => s.ms)),
      groupBy<(typeof busy)[number]>(s => key(s.origin), busy) as Record<string, typeof busy>,
    );
  return {
    busyMs,
    idleMs,
    byFile: ranked(
      busyMs,
      total(o => o.file),
    ),
    byFunction: ranked(
      busyMs,
      total(o => (o.name || o.line ? `${o.file}:${o.line} ${o.name}`.trim() : o.file)),
    ),
  };
}
