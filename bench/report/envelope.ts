/**
 * What every bench writes to bench/results/<bench>.json: when, at which commit and on which
 * machine it ran, with which parameters, and its figures. Checked here (not trusted) because the
 * renderers and the smoke runs read files that a run, or a hand, wrote.
 */

/** The machine, as node's `os` saw it (nulls: not known, e.g. transcribed from older docs). */
export interface Machine {
  nproc: number;
  memoryBytes: number | null;
  kernel: string | null;
  cpu: string | null;
  /** 1-, 5- and 15-minute load averages when the run started: was anything else running? */
  loadAverage: [number, number, number] | null;
}

export interface BenchResult<P = unknown, F = unknown> {
  bench: string;
  /** When the run started (ISO 8601), or the day the docs give for it; null when they give none. */
  date: string | null;
  /** `git rev-parse --short HEAD` (with "-dirty" for uncommitted changes); null when unknown. */
  commit: string | null;
  machine: Machine;
  parameters: P;
  figures: F;
  /** Set only on figures transcribed from docs rather than written by a run; render() prints it. */
  source?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const nullableString = (v: unknown): boolean => v === null || typeof v === "string";

function checkMachine(m: unknown): string[] {
  if (!isObject(m)) return ["machine is not an object"];
  const errors: string[] = [];
  if (typeof m.nproc !== "number" || m.nproc < 1) errors.push("machine.nproc is not a count");
  if (m.memoryBytes !== null && typeof m.memoryBytes !== "number")
    errors.push("machine.memoryBytes is not a number or null");
  if (!nullableString(m.kernel)) errors.push("machine.kernel is not a string or null");
  if (!nullableString(m.cpu)) errors.push("machine.cpu is not a string or null");
  return errors;
}

/**
 * The envelope's problems, none when it is well formed; `bench` is the name the file must carry.
 * The figures are each renderer's to check: it reads them.
 */
export function envelopeErrors(r: unknown, bench: string): string[] {
  if (!isObject(r)) return ["not a JSON object"];
  const errors = checkMachine(r.machine);
  if (r.bench !== bench) errors.push(`bench is ${JSON.stringify(r.bench)}, not "${bench}"`);
  if (!nullableString(r.date)) errors.push("date is not a string or null");
  if (!nullableString(r.commit)) errors.push("commit is not a string or null");
  if (!isObject(r.parameters)) errors.push("parameters is not an object");
  if (!isObject(r.figures) || Object.keys(r.figures).length === 0) errors.push("no figures");
  if (r.source !== undefined && typeof r.source !== "string") errors.push("source is no string");
  return errors;
}

/** Parses and checks a result file's text; throws, naming the file, when it is malformed. */
export function parseResult<P, F>(text: string, bench: string, file: string): BenchResult<P, F> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: malformed JSON: ${(err as Error).message}`);
  }
  const errors = envelopeErrors(parsed, bench);
  if (errors.length > 0) throw new Error(`${file}: ${errors.join("; ")}`);
  return parsed as BenchResult<P, F>;
}
