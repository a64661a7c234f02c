import { cronNeverFires } from "./cron-fires";

describe("cronNeverFires", () => {
  it.each([
    "0 3 * * *",
    "@daily",
    "@yearly",
    "0 0 29 2 *", // leap years
    "0 0 29 feb ?",
    "0 0 31 * *",
    "0 0 31 1-4 *", // January and March have a 31st
    "0 0 30,31 2,3 *",
    "0 0 31 */2 *", // 1,3,5,7,9,11: January has a 31st
    "0 0 30 2 1", // day of month OR day of week: every Monday in February
    "0 0 31 4 mon-fri",
    "0 0 30 2 */2", // a stepped weekday is restricted: OR
    "0 0 * 2 *",
    "0 0 */10 2 *", // 1, 11, 21
    "0 0 28-31 2 *",
    "0 0 30 1-12/2 *",
    "0 0 31 jul *",
  ])("%p can fire", schedule => {
    expect(cronNeverFires(schedule)).toBeUndefined();
  });

  it.each([
    ["0 0 30 2 *", /February has no day 30/],
    ["0 0 31 2 *", /February has no day 31/],
    ["0 0 30,31 2 *", /February has no day 30, 31/],
    ["0 0 30-31 feb *", /February has no day 30, 31/],
    ["0 0 31 4,6,9,11 *", /April, June, September, November have no day 31/],
    ["0 0 31 4 *", /April has no day 31/],
    ["0 0 31 jun ?", /June has no day 31/],
    ["0 0 31 SEP *", /September has no day 31/],
    ["0 0 31 nov *", /November has no day 31/],
    ["0 0 31 4-6/2 ?", /April, June have no day 31/],
    ["0 0 30 2 */1", /February has no day 30/], // a step of 1 is still every weekday
    ["59 23 31 2,4 *", /February, April have no day 31/],
  ])("%p never fires", (schedule, why) => {
    expect(cronNeverFires(schedule)).toMatch(why);
  });
});
