import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AckLog, WRITER_ID_SPACE, ackAfterOutage } from "../e2e/load/ack-log";

const file = () => join(mkdtempSync(join(tmpdir(), "acks-")), "acks");
const W1 = WRITER_ID_SPACE;

describe("AckLog", () => {
  it("reads appended lines incrementally, a partial last line included once complete", () => {
    const path = file();
    const log = new AckLog(path);
    expect(log.count).toBe(0); // no file yet
    writeFileSync(path, "1 100 10.0.0.1\n2 101 10.0.0.1\n3 10");
    expect(log.count).toBe(2);
    appendFileSync(path, "2 10.0.0.1\n");
    expect(log.count).toBe(3);
    expect(log.ranges()).toEqual([[1, 3]]);
  });

  it("keeps each writer's ids as ranges, split where attempts failed", () => {
    const path = file();
    writeFileSync(
      path,
      [
        `1 100 a`,
        `${W1 + 1} 100 a`,
        `2 101 a`,
        `${W1 + 2} 101 a`,
        `5 110 b`, // 3 and 4 failed
        `${W1 + 3} 110 b`,
        `6 111 b`,
        "",
      ].join("\n"),
    );
    const log = new AckLog(path);
    expect(log.ranges().sort((x, y) => x[0] - y[0])).toEqual([
      [1, 2],
      [5, 6],
      [W1 + 1, W1 + 3],
    ]);
  });

  it("finds the first acknowledgement at or after a time, from another server if asked", () => {
    const path = file();
    writeFileSync(path, "1 100 a\n2 105 a\n3 105 a\n4 120 b\n5 130 b\n");
    const log = new AckLog(path);
    expect(log.firstAfter(105)).toEqual({ id: 2, at: 105, server: "a" });
    expect(log.firstAfter(101, "a")).toEqual({ id: 4, at: 120, server: "b" });
    expect(log.firstAfter(131)).toBeUndefined();
  });

  it.each<[string, number, number, number]>([
    ["the outage inside the window", 100, 140, 15],
    ["from the window's start to its first acknowledgement", 106, 126, 14],
    ["from the last acknowledgement to the window's end", 100, 200, 70],
    ["a window with none", 131, 150, 19],
  ])("measures the longest time without acknowledgements: %s", (_, from, to, expected) => {
    const path = file();
    writeFileSync(path, "1 100 a\n2 105 a\n3 120 b\n4 125 b\n5 130 b\n");
    expect(new AckLog(path).longestGap(from, to)).toBe(expected);
  });

  it("holds a million acknowledgements in a few ranges", () => {
    const path = file();
    const lines: string[] = [];
    for (let id = 1; id <= 1_000_000; id++) {
      if (id % 250_000 === 0) continue; // four failed attempts
      lines.push(`${id} ${1000 + Math.floor(id / 1000)} 10.0.0.${id < 500_000 ? 1 : 2}`);
    }
    writeFileSync(path, lines.join("\n") + "\n");
    const log = new AckLog(path);
    expect(log.count).toBe(999_996);
    expect(log.ranges()).toHaveLength(4);
    expect(log.firstAfter(0, "10.0.0.1")?.id).toBe(500_000 + 1);
  });
});

describe("ackAfterOutage", () => {
  const log = (lines: string) => {
    const path = file();
    writeFileSync(path, lines);
    return new AckLog(path);
  };
  it.each<[string, string, number[], number | undefined]>([
    // The commit in flight acknowledged, the next insert refused in the same millisecond.
    [
      "an ack in the millisecond of the first error is from before",
      "1 1000 a\n",
      [1000],
      undefined,
    ],
    ["the first ack after the last error", "1 1000 a\n2 1500 b\n", [1000, 1200], 1500],
    ["no error since t0: the first ack after it", "1 900 a\n2 1100 a\n", [800], 1100],
    ["still failing: none", "1 900 a\n", [1000, 1100], undefined],
  ])("%s", (_, lines, errors, at) => {
    expect(ackAfterOutage(log(lines), errors, 1000)?.at).toBe(at);
  });
});
