import { lastFireTime, nextFireTime } from "./cron-times";

const at = (iso: string) => new Date(iso);

describe("cron fire times (UTC)", () => {
  it.each<[string, string, number, string | undefined]>([
    ["0 3 * * *", "2026-12-02T03:40:00Z", 60, "2026-12-02T03:00:00.000Z"],
    ["0 3 * * *", "2026-12-02T04:10:00Z", 60, undefined],
    ["*/15 * * * *", "2026-12-02T10:44:59Z", 60, "2026-12-02T10:30:00.000Z"],
    ["* * * * *", "2026-12-02T10:44:30Z", 1, "2026-12-02T10:44:00.000Z"],
    ["@hourly", "2026-12-02T10:44:00Z", 60, "2026-12-02T10:00:00.000Z"],
    ["30 2 * * mon-fri", "2026-12-06T02:45:00Z", 60, undefined], // a Sunday
    ["30 2 * * mon-fri", "2026-12-07T02:45:00Z", 60, "2026-12-07T02:30:00.000Z"], // a Monday
    // Day of month and day of week both restricted: either matches (the 1st, or a Sunday).
    ["0 0 1 * sun", "2026-12-06T00:30:00Z", 60, "2026-12-06T00:00:00.000Z"],
    ["0 0 1 * sun", "2026-12-01T00:30:00Z", 60, "2026-12-01T00:00:00.000Z"],
    ["0 0 1 * sun", "2026-12-02T00:30:00Z", 60, undefined],
    ["5-10/5 * * dec *", "2026-12-02T10:12:00Z", 60, "2026-12-02T10:10:00.000Z"],
    ["0 0 30 2 *", "2026-02-28T23:59:00Z", 60, undefined], // never
  ])("%s at %s: last within %i min = %s", (schedule, now, window, expected) => {
    expect(lastFireTime(schedule, at(now), window)?.toISOString()).toBe(expected);
  });

  it.each<[string, string, number, string | undefined]>([
    ["0 3 * * *", "2026-12-02T02:40:00Z", 60, "2026-12-02T03:00:00.000Z"],
    ["0 3 * * *", "2026-12-02T03:00:00Z", 60, undefined], // strictly after now
    ["* * * * *", "2026-12-02T10:44:30Z", 60, "2026-12-02T10:45:00.000Z"],
  ])("%s at %s: next within %i min = %s", (schedule, now, window, expected) => {
    expect(nextFireTime(schedule, at(now), window)?.toISOString()).toBe(expected);
  });
});
