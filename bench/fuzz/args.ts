/** The runner's command line (see run.ts). */

export type Mode = "apiserver" | "direct";

export interface Args {
  seed: number;
  cases: number;
  from: number;
  concurrency: number;
  modes: Mode[];
  /** Replay this one case (print it, its verdict and, unless --mode none, its outcomes). */
  replay?: number;
}

const MODES: Record<string, Mode[]> = {
  apiserver: ["apiserver"],
  direct: ["direct"],
  both: ["apiserver", "direct"],
  none: [],
};

function value(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

function number(argv: string[], name: string, fallback: number): number {
  const v = value(argv, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(`--${name} takes a whole number, not ${v}`);
  return n;
}

export function parseArgs(argv: string[]): Args {
  const mode = value(argv, "mode") ?? "both";
  const modes = MODES[mode];
  if (!modes) throw new Error(`--mode is apiserver, direct, both or none, not ${mode}`);
  // Without --seed a fresh one, printed, so the run can still be replayed.
  const seed = number(argv, "seed", Math.floor(Math.random() * 2 ** 31));
  const replay = value(argv, "case") === undefined ? undefined : number(argv, "case", 0);
  return {
    seed,
    cases: number(argv, "cases", 1000),
    from: number(argv, "from", 0),
    concurrency: Math.max(1, number(argv, "concurrency", 6)),
    modes,
    replay,
  };
}
