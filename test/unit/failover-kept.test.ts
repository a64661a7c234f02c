/**
 * bench/failover KEEP=1: a run of some faults keeps the committed run's other faults, each marked
 * with the run it comes from and what it lost there.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FAULTS } from "../../bench/failover/faults";
import {
  FailoverFault,
  FailoverResult,
  keptFaults,
  renderFailover,
  withKept,
} from "../../bench/report/failover";

const previous = JSON.parse(
  readFileSync(join(__dirname, "bench-report", "failover.json"), "utf8"),
) as FailoverResult; // delete (lost 0 so far) then kill (2 so far), 2026-12-05, abc1234

const cut: FailoverFault = {
  fault: "cut",
  attempted: 1,
  timelines: [{ writtenMs: 9000, gapMs: 8800 }],
  twoWritableRounds: 0,
  failed: [],
  lostSoFar: 3,
};

describe("faults kept from the committed run", () => {
  it("keeps the faults this run does not run, with the run they come from and their own loss", () => {
    const kept = keptFaults(previous, ["kill", "cut"]);
    expect(kept.map(f => f.fault)).toEqual(["delete"]);
    expect(kept[0].earlier).toEqual({
      date: "2026-12-05T10:00:00.000Z",
      commit: "abc1234",
      command: "`FAILOVERS=2 FAULTS=delete,kill npm run bench:failover`",
      lost: 0,
    });
    expect(keptFaults(previous, ["cut"]).find(f => f.fault === "kill")?.earlier?.lost).toBe(2);
  });

  it("keeps nothing without a committed run, and a kept fault's origin when kept again", () => {
    expect(keptFaults(undefined, ["cut"])).toEqual([]);
    const once = keptFaults(previous, ["cut"]);
    const again = keptFaults(
      {
        ...previous,
        date: "2026-12-08T00:00:00.000Z",
        commit: "new",
        figures: { faults: [...once, cut], rows: null },
      },
      ["stop"],
    );
    expect(again.find(f => f.fault === "delete")?.earlier?.commit).toBe("abc1234");
    expect(again.find(f => f.fault === "cut")?.earlier?.commit).toBe("new");
  });

  it("renders every fault in the order of FAULTS, marks the kept ones, and counts this run's losses alone", () => {
    const faults = withKept(FAULTS, [cut], keptFaults(previous, ["cut"]));
    expect(faults.map(f => f.fault)).toEqual(["delete", "kill", "cut"]);
    const text = renderFailover({
      ...previous,
      date: "2026-12-07T06:00:00.000Z",
      commit: "def5678",
      parameters: { ...previous.parameters, failovers: 1, faults: ["cut"] },
      figures: { faults, rows: { acknowledged: 100, lost: 3 } },
    });
    expect(text).toMatch(/^`KEEP=1 FAILOVERS=1 FAULTS=cut npm run bench:failover`/);
    expect(text).toMatch(/\| pod deleted ¹ +\|/);
    expect(text).toMatch(/\| postmaster SIGKILL ¹ +\|/);
    expect(text).toMatch(/\| network cut +\|/);
    // cut lost 3 in this run (no fault of this run before it); kill's 2 are its own run's
    expect(text).toMatch(/\| network cut .*\| 3 +\|$/m);
    expect(text).toMatch(/\| postmaster SIGKILL ¹ .*\| 2 +\|$/m);
    expect(text).toContain(
      "¹ pod deleted, postmaster SIGKILL: kept from the run of 2026-12-05 at commit `abc1234` (`FAILOVERS=2 FAULTS=delete,kill npm run bench:failover`)",
    );
  });
});
