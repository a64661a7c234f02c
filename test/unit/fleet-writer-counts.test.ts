import { countFailure, REASONS_KEPT } from "../../bench/fleet/writer-counts";
import type { WriterCounts } from "../../bench/fleet/writer-counts";

describe("countFailure", () => {
  it.each<[string, unknown[], WriterCounts]>([
    [
      "counts each failure under its message",
      [new Error("timeout"), new Error("timeout"), new Error("ECONNREFUSED")],
      { acknowledged: 0, failed: 3, reasons: { timeout: 2, ECONNREFUSED: 1 } },
    ],
    [
      "keeps a message's first line, at most 120 characters",
      [new Error(`${"x".repeat(200)}\nstack`), "not an Error"],
      { acknowledged: 0, failed: 2, reasons: { ["x".repeat(120)]: 1, "not an Error": 1 } },
    ],
  ])("%s", (_name, errors, expected) => {
    const counts: WriterCounts = { acknowledged: 0, failed: 0 };
    for (const err of errors) countFailure(counts, err);
    expect(counts).toEqual(expected);
  });

  it(`keeps ${REASONS_KEPT} distinct reasons, and counts every failure`, () => {
    const counts: WriterCounts = { acknowledged: 0, failed: 0 };
    for (let i = 0; i < REASONS_KEPT + 5; i++) countFailure(counts, new Error(`reason ${i}`));
    countFailure(counts, new Error("reason 0"));
    expect(counts.failed).toBe(REASONS_KEPT + 6);
    expect(Object.keys(counts.reasons ?? {})).toHaveLength(REASONS_KEPT);
    expect(counts.reasons?.["reason 0"]).toBe(2);
  });
});
