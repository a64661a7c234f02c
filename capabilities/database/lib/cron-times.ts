/**
 * When a (valid, see cron.ts) schedule fires, in UTC, as a Kubernetes CronJob would: five fields
 * or a macro; when both day of month and day of week are restricted, a day matching either
 * fires (robfig/cron's rule). Searches are bounded: the operator only asks about the last and
 * the next hour.
 */

const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};
const BOUNDS: [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];
const NAMES: (readonly string[] | undefined)[] = [
  undefined,
  undefined,
  undefined,
  ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
  ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
];

interface Parsed {
  sets: Set<number>[];
  /** Day of month / day of week given as `*` or `?` (unrestricted). */
  anyDom: boolean;
  anyDow: boolean;
}

function valueOf(token: string, field: number): number {
  const names = NAMES[field];
  const index = names?.indexOf(token.toLowerCase()) ?? -1;
  return index >= 0 ? index + BOUNDS[field][0] : Number(token);
}

function expand(text: string, field: number): Set<number> {
  const [min, max] = BOUNDS[field];
  const values = new Set<number>();
  for (const item of text.split(",")) {
    const [range, stepText] = item.split("/");
    const step = stepText === undefined ? 1 : Number(stepText);
    let [start, end] = [min, max];
    if (range !== "*" && range !== "?") {
      const [a, b] = range.split("-");
      start = valueOf(a, field);
      // `a/step` runs to the field's end, as in robfig/cron.
      end = b !== undefined ? valueOf(b, field) : stepText !== undefined ? max : start;
    }
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return values;
}

function parse(schedule: string): Parsed {
  const fields = (MACROS[schedule] ?? schedule).split(/\s+/);
  return {
    sets: fields.map((f, i) => expand(f, i)),
    anyDom: fields[2] === "*" || fields[2] === "?",
    anyDow: fields[4] === "*" || fields[4] === "?",
  };
}

function fires(p: Parsed, t: Date): boolean {
  const [minutes, hours, doms, months, dows] = p.sets;
  if (!minutes.has(t.getUTCMinutes()) || !hours.has(t.getUTCHours())) return false;
  if (!months.has(t.getUTCMonth() + 1)) return false;
  const dom = doms.has(t.getUTCDate());
  const dow = dows.has(t.getUTCDay());
  if (p.anyDom || p.anyDow) return dom && dow;
  return dom || dow;
}

const MINUTE = 60_000;
const floorMinute = (t: Date): number => Math.floor(t.getTime() / MINUTE) * MINUTE;

/** The latest fire time in (now - windowMinutes, now], or undefined. */
export function lastFireTime(schedule: string, now: Date, windowMinutes: number): Date | undefined {
  const p = parse(schedule);
  const start = floorMinute(now);
  for (let i = 0; i < windowMinutes; i++) {
    const t = new Date(start - i * MINUTE);
    if (fires(p, t)) return t;
  }
  return undefined;
}

/** The first fire time in (now, now + windowMinutes], or undefined. */
export function nextFireTime(schedule: string, now: Date, windowMinutes: number): Date | undefined {
  const p = parse(schedule);
  const start = floorMinute(now);
  for (let i = 1; i <= windowMinutes; i++) {
    const t = new Date(start + i * MINUTE);
    if (fires(p, t)) return t;
  }
  return undefined;
}
