import { parseFaults } from "../../bench/failover/faults";

describe("parseFaults (bench/failover's FAULTS)", () => {
  it.each([
    ["delete", [{ fault: "delete", count: 60 }]],
    [
      "delete,kill:20, switchover",
      [
        { fault: "delete", count: 60 },
        { fault: "kill", count: 20 },
        { fault: "switchover", count: 60 },
      ],
    ],
  ])("reads %p", (text, want) => {
    expect(parseFaults(text, 60)).toEqual(want);
  });

  it.each([["freeze"], ["kill:0"], ["kill:two"], [""], ["delete,,kill"]])(
    "refuses %p, naming what it could not read and what it can",
    text => {
      expect(() => parseFaults(text, 60)).toThrow(
        /^FAULTS: cannot read .*: each of delete, kill, stop, cut, switchover, optionally with a count \(kill:20\)$/,
      );
    },
  );
});
