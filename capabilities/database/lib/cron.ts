/**
 * Validation of cron schedules as a Kubernetes CronJob accepts them (the standard 5-field
 * syntax of robfig/cron's ParseStandard, which the apiserver uses), so a bad backup schedule is
 * refused when the Database is written instead of failing later when the CronJob is applied.
 *
 * Deliberately a little stricter than the apiserver where its parser is lax about nonsense
 * ("*-5", "+5") and where our CRD pattern already refuses something (`@every`, TZ prefixes,
 * surrounding whitespace).
 */

/** The macros a CronJob schedule may use instead of five fields. */
const CRON_MACROS = [
  "@yearly",
  "@annually",
  "@monthly",
  "@weekly",
  "@daily",
  "@midnight",
  "@hourly",
] as const;

interface Field {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/** Bounds as in robfig/cron: day of week is 0-6 (Sunday is 0; 7 is refused). */
const FIELDS: readonly Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS },
  { name: "day of week", min: 0, max: 6, names: DAYS },
];

const NUMBER = /^[0-9]+$/;

/** A number or (for month and day of week) a three-letter name, as its numeric value. */
function valueOf(token: string, field: Field): number | string {
  if (NUMBER.test(token)) {
    const n = Number(token);
    if (n < field.min || n > field.max) {
      return `${token} is out of range for ${field.name} (${field.min}-${field.max})`;
    }
    return n;
  }
  const index = field.names?.indexOf(token.toLowerCase()) ?? -1;
  // Names count from the field's minimum: jan is 1, sun is 0.
  if (index >= 0) return index + field.min;
  const names = field.names ? ` or a name (${field.names[0]}, ${field.names[1]}, …)` : "";
  return `"${token}" is not a valid ${field.name}: expected a number ${field.min}-${field.max}${names}`;
}

/** Checks one list element: `*`, `?`, `v`, `a-b`, each optionally followed by `/step`. */
function checkItem(item: string, field: Field): string | undefined {
  const parts = item.split("/");
  if (parts.length > 2) return `"${item}" has more than one "/" in ${field.name}`;
  const [range, step] = parts;
  if (step !== undefined) {
    if (!NUMBER.test(step)) return `step "${step}" in ${field.name} must be a positive number`;
    if (Number(step) === 0) return `step 0 in ${field.name}: the step must be positive`;
  }
  if (range === "*" || range === "?") return undefined;
  const bounds = range.split("-");
  if (bounds.length > 2) return `"${range}" has too many "-" in ${field.name}`;
  const values = bounds.map(b => valueOf(b, field));
  const error = values.find((v): v is string => typeof v === "string");
  if (error !== undefined) return error;
  const [start, end] = values as number[];
  if (end !== undefined && start > end) {
    return `range "${range}" in ${field.name} starts after it ends`;
  }
  return undefined;
}

function checkField(text: string, field: Field): string | undefined {
  for (const item of text.split(",")) {
    if (item === "") return `empty element in ${field.name} "${text}"`;
    const error = checkItem(item, field);
    if (error !== undefined) return error;
  }
  return undefined;
}

function checkFields(schedule: string): string | undefined {
  const fields = schedule.split(/\s+/);
  if (/^(CRON_)?TZ=/.test(fields[0])) {
    return "time zones (TZ=, CRON_TZ=) are not supported in the schedule; it runs in the cluster's time zone";
  }
  if (fields.length !== FIELDS.length) {
    return `expected 5 fields (minute hour day-of-month month day-of-week) or a macro such as @daily, found ${fields.length}${fields.length === 6 ? " (a seconds field is not supported)" : ""}`;
  }
  for (const [i, field] of FIELDS.entries()) {
    const error = checkField(fields[i], field);
    if (error !== undefined) return error;
  }
  return undefined;
}

/**
 * Returns why `schedule` is not a valid CronJob schedule, or undefined when it is one.
 * Accepts five fields (ranges, steps, lists, `*`, `?`, month and weekday names) or one of
 * `CRON_MACROS`.
 */
export function validateCron(schedule: unknown): string | undefined {
  if (typeof schedule !== "string") return "must be a string";
  if (schedule.trim() === "") return "must not be empty";
  if (schedule !== schedule.trim()) return "must not start or end with whitespace";
  if (schedule.startsWith("@")) {
    return (CRON_MACROS as readonly string[]).includes(schedule)
      ? undefined
      : `unknown macro "${schedule}": use 5 fields or one of ${CRON_MACROS.join(", ")}`;
  }
  return checkFields(schedule);
}
