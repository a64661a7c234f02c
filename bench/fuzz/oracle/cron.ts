/**
 * Backup schedules: the CRD's pattern, then robfig/cron's ParseStandard (what Kubernetes CronJobs
 * use; the product documents "5 fields, or @daily etc."), then whether any date matches at all.
 */
const PATTERN = /^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|(\S+\s+){4}\S+)$/;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const BOUNDS: [number, number, string[]?][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12, MONTHS],
  [0, 6, DAYS],
];
const LONGEST = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function num(t: string, [lo, hi, names]: [number, number, string[]?]): number | undefined {
  const i = names?.indexOf(t.toLowerCase()) ?? -1;
  const n = i >= 0 ? i + lo : /^\d+$/.test(t) ? Number(t) : NaN;
  return n >= lo && n <= hi ? n : undefined;
}

/** The set of values of one field, and whether it was a bare star; undefined when invalid. */
function field(
  text: string,
  b: [number, number, string[]?],
): { values: Set<number>; star: boolean } | undefined {
  const values = new Set<number>();
  let star = false;
  for (const item of text.split(",")) {
    const [range, step, extra] = item.split("/");
    if (extra !== undefined || (step !== undefined && !/^\d+$/.test(step))) return undefined;
    const by = step === undefined ? 1 : Number(step);
    if (by === 0) return undefined;
    let lo: number | undefined = b[0];
    let hi: number | undefined = b[1];
    if (range === "*" || range === "?") star ||= by === 1;
    else {
      const [a, z, more] = range.split("-");
      if (more !== undefined) return undefined;
      lo = num(a, b);
      hi = z !== undefined ? num(z, b) : step !== undefined ? b[1] : lo;
      if (lo === undefined || hi === undefined || lo > hi) return undefined;
    }
    for (let v = lo; v <= hi; v += by) values.add(v);
  }
  return { values, star };
}

export type CronVerdict = "ok" | "pattern" | "invalid" | "never";

export function judgeCron(s: string): CronVerdict {
  if (s.length > 100 || !PATTERN.test(s)) return "pattern";
  if (s.startsWith("@")) return "ok";
  const parts = s.split(/\s+/);
  const fields = parts.map((p, i) => field(p, BOUNDS[i]));
  if (fields.some(f => f === undefined)) return "invalid";
  const [, , dom, month, dow] = fields as { values: Set<number>; star: boolean }[];
  // robfig: with either day field a bare star, a day must match both; else either.
  if (dom.star || !dow.star) return "ok";
  const fires = [...month.values].some(m => [...dom.values].some(d => d <= LONGEST[m - 1]));
  return fires ? "ok" : "never";
}
