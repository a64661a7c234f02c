/**
 * Whether a 5-field cron schedule can ever fire: `0 0 30 2 *` (February 30th) and
 * `0 0 31 4,6,9,11 *` are well-formed, and a CronJob with them is accepted by Kubernetes, but no
 * backup would ever be taken. Pure; reads only schedules that `validateCron` accepts.
 *
 * Day matching is robfig/cron's (what the CronJob controller uses): when day-of-month or
 * day-of-week is `*` or `?`, a day must match both; otherwise either. So only a schedule whose
 * day-of-week is unrestricted and whose days of month exist in none of its months never fires;
 * with a restricted day-of-week, every month has every weekday.
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
/** Longest length of each month; February has a 29th in leap years. */
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

interface Parsed {
  values: Set<number>;
  /** `*` or `?` without a step > 1: robfig/cron's "star bit". */
  star: boolean;
}

const valueOf = (token: string, names?: readonly string[]): number => {
  const index = names?.indexOf(token.toLowerCase()) ?? -1;
  return index >= 0 ? index + 1 : Number(token);
};

function parseItem(item: string, min: number, max: number, names?: readonly string[]): Parsed {
  const [range, stepText] = item.split("/");
  const step = stepText === undefined ? 1 : Number(stepText);
  let [start, end] = [min, max];
  let star = false;
  if (range === "*" || range === "?") star = step === 1;
  else {
    const [low, high] = range.split("-");
    start = valueOf(low, names);
    // "N/step" means N..max in steps; "N" alone is just N.
    end = high !== undefined ? valueOf(high, names) : stepText !== undefined ? max : start;
  }
  const values = new Set<number>();
  for (let v = start; v <= end; v += step) values.add(v);
  return { values, star };
}

function parseField(text: string, min: number, max: number, names?: readonly string[]): Parsed {
  const parsed: Parsed = { values: new Set(), star: false };
  for (const item of text.split(",")) {
    const one = parseItem(item, min, max, names);
    one.values.forEach(v => parsed.values.add(v));
    parsed.star ||= one.star;
  }
  return parsed;
}

/**
 * Why `schedule` can never fire, or undefined when some real date (February 29th included)
 * matches it. Macros always fire. Assumes `validateCron(schedule)` found nothing wrong.
 */
export function cronNeverFires(schedule: string): string | undefined {
  if (schedule.startsWith("@")) return undefined;
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5) return undefined;
  const days = parseField(fields[2], 1, 31);
  const months = parseField(fields[3], 1, 12, MONTHS);
  const weekdays = parseField(fields[4], 0, 6);
  // A restricted weekday field matches some day of every month (OR, or AND with any day).
  if (days.star || !weekdays.star) return undefined;
  const monthList = [...months.values].sort((a, b) => a - b);
  const dayList = [...days.values].sort((a, b) => a - b);
  if (monthList.some(m => dayList.some(d => d <= DAYS_IN_MONTH[m - 1]))) return undefined;
  const monthNames = monthList.map(m => MONTH_NAMES[m - 1]).join(", ");
  return `never fires: ${monthNames} ${monthList.length === 1 ? "has" : "have"} no day ${dayList.join(", ")} (February has at most 29 days; April, June, September and November 30)`;
}
