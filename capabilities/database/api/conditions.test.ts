/** lastTransitionTime moves only when a condition's status does, against what is stored. */
import type { Condition } from "./database-schema";
import { keepTransitionTimes, setCondition } from "./conditions";

const cond = (type: Condition["type"], status: Condition["status"], at: string): Condition =>
  ({ type, status, reason: "R", message: "m", lastTransitionTime: at }) as Condition;

describe("keepTransitionTimes", () => {
  it.each<[string, Condition[] | undefined, Condition[] | undefined, string[] | undefined]>([
    ["nothing stored: as computed", undefined, [cond("Ready", "False", "t2")], ["t2"]],
    ["nothing computed", [cond("Ready", "False", "t1")], undefined, undefined],
    [
      "same status: the stored time",
      [cond("Ready", "False", "t1")],
      [cond("Ready", "False", "t2")],
      ["t1"],
    ],
    [
      "status changed: the new time",
      [cond("Ready", "True", "t1")],
      [cond("Ready", "False", "t2")],
      ["t2"],
    ],
    [
      "a new condition: its own time",
      [cond("Ready", "False", "t1")],
      [cond("Ready", "False", "t1"), cond("Reconciled", "True", "t2")],
      ["t1", "t2"],
    ],
  ])("%s", (_case, stored, next, times) => {
    expect(keepTransitionTimes(stored, next)?.map(c => c.lastTransitionTime)).toEqual(times);
  });

  it("undoes a flip within one pass: False, then True by one rule, then False by another", () => {
    const stored = [cond("Ready", "False", "t1")];
    const now = new Date("2026-12-07T08:00:00Z");
    const input = (status: "True" | "False") => ({
      type: "Ready" as const,
      status,
      reason: "R",
      message: "m",
    });
    const flipped = setCondition(setCondition(stored, input("True"), now), input("False"), now);
    expect(flipped[0].lastTransitionTime).toBe(now.toISOString());
    expect(keepTransitionTimes(stored, flipped)?.[0].lastTransitionTime).toBe("t1");
  });
});
