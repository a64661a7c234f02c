/** bench:scale KEEP=1: the committed runs of other sizes stay, each saying where it comes from. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ScaleResult, ScaleRun, withKeptRuns } from "../../bench/report/scale";

const previous: ScaleResult = {
  ...JSON.parse(readFileSync(join(__dirname, "bench-report", "scale.json"), "utf8")),
  date: "2026-12-07T08:00:00.000Z",
  commit: "2898772",
};
const { note: _fixtureNote, ...figures } = previous.figures.runs[0];
const run = (n: number, concurrency = 4, note?: string): ScaleRun => ({
  ...figures,
  n,
  concurrency,
  ...(note ? { note } : {}),
});

describe("withKeptRuns", () => {
  const withRuns = (runs: ScaleRun[]): ScaleResult => ({
    ...previous,
    figures: { runs },
    parameters: { ...previous.parameters, sizes: [100, 1000], placement: "cluster" },
  });

  it("keeps nothing without KEEP (no previous result)", () => {
    expect(withKeptRuns(undefined, [run(100)])).toEqual([run(100)]);
  });

  it("replaces the sizes this run ran, keeps the others with a footnote, in size order", () => {
    const merged = withKeptRuns(withRuns([run(100), run(1000)]), [run(100)]);
    expect(merged.map(r => [r.n, r.note])).toEqual([
      [100, undefined],
      [
        1000,
        "Kept from the run of 2026-12-07 at commit `2898772` (`OPERATOR=cluster npm run bench:scale -- --n 100,1000 --concurrency 4 --idle 90 --ready-timeout 60`).",
      ],
    ]);
  });

  it("keeps a kept run's own footnote after where it comes from", () => {
    const merged = withKeptRuns(withRuns([run(1000, 4, "a stalled wait")]), [run(100)]);
    expect(merged[1].note).toMatch(/^Kept from the run of .*; a stalled wait$/);
  });

  it("tells concurrencies apart: 100 at 1 is not 100 at 4", () => {
    const merged = withKeptRuns(withRuns([run(100, 1)]), [run(100, 4)]);
    expect(merged.map(r => [r.n, r.concurrency])).toEqual([
      [100, 4],
      [100, 1],
    ]);
  });
});
