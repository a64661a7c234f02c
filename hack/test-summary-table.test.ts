import { JestReport, failures, parseSteps, summarize } from "./test-summary-table";

const report = (files: [string, number][], failed = 0): JestReport => ({
  numTotalTests: files.length * 2,
  numFailedTests: failed,
  testResults: files.map(([name, seconds]) => ({
    name,
    startTime: 0,
    endTime: seconds * 1000,
    status: "passed",
  })),
});

describe("the summary of a test run", () => {
  const steps = parseSteps(
    [
      "builds\tbackground\t100\t1300\t0",
      "lint\tforeground\t100\t160\t0",
      "unit tests\tforeground\t160\t280\t0",
      "waiting for builds\twait\t280\t1300\t0",
      "integration tests\tforeground\t1300\t1900\t1",
      "",
    ].join("\n"),
  );

  it("reads the steps file", () => {
    expect(steps).toHaveLength(5);
    expect(steps[4]).toEqual({
      name: "integration tests",
      kind: "foreground",
      start: 1300,
      end: 1900,
      status: 1,
    });
  });

  it("prints each step with its tier's files and tests, the wall time and the slowest files", () => {
    const text = summarize(steps, {
      unit: report([["/r/capabilities/a.test.ts", 30]]),
      integration: report(
        [
          ["/r/test/integration/x.test.ts", 400],
          ["/r/test/integration/y.test.ts", 100],
        ],
        1,
      ),
    }).split("\n");
    expect(text).toContainEqual(
      expect.stringMatching(/^builds \(beside the others\)\s+ok\s+20\.0$/),
    );
    expect(text).toContainEqual(expect.stringMatching(/^unit tests\s+ok\s+1\s+2\/2\s+2\.0$/));
    expect(text).toContainEqual(
      expect.stringMatching(/^integration tests\s+FAILED \(1\)\s+2\s+3\/4\s+10\.0$/),
    );
    expect(text).toContainEqual(expect.stringMatching(/^wall time\s+30\.0$/));
    expect(text.at(-1)).toBe(
      "slowest test files: /r/test/integration/x.test.ts 6.7 min, /r/test/integration/y.test.ts 1.7 min, /r/capabilities/a.test.ts 0.5 min",
    );
  });

  it("names each failed test with the first line of why, and a suite that could not run", () => {
    const failing: JestReport = {
      numTotalTests: 3,
      numFailedTests: 1,
      testResults: [
        {
          name: "/r/test/postgres/probe.test.ts",
          startTime: 0,
          endTime: 1,
          status: "failed",
          assertionResults: [
            { fullName: "probe reads both standbys", status: "passed" },
            {
              fullName: "probe reports lag",
              status: "failed",
              failureMessages: [
                "\u001b[31mError: expect(received).toBe(expected)\u001b[39m\n\nat x",
              ],
            },
          ],
        },
        {
          name: "/r/test/postgres/broken.test.ts",
          startTime: 0,
          endTime: 1,
          status: "failed",
          message: "  ● Test suite failed to run\n\n    Cannot find module 'x'\n",
          assertionResults: [],
        },
      ],
    };
    expect(failures({ postgres: failing })).toEqual([
      "  /r/test/postgres/probe.test.ts › probe reports lag: Error: expect(received).toBe(expected)",
      "  /r/test/postgres/broken.test.ts: Cannot find module 'x'",
    ]);
    expect(summarize([], { postgres: failing }).split("\n")).toContain("failed tests:");
    expect(summarize([], { unit: report([["/r/a.test.ts", 1]]) })).not.toContain("failed tests:");
  });

  it("lists at most ten failures, then how many more", () => {
    const many: JestReport = {
      numTotalTests: 12,
      numFailedTests: 12,
      testResults: [
        {
          name: "f",
          startTime: 0,
          endTime: 1,
          status: "failed",
          assertionResults: Array.from({ length: 12 }, (_, i) => ({
            fullName: `t${i}`,
            status: "failed",
            failureMessages: ["no"],
          })),
        },
      ],
    };
    const listed = failures({ e2e: many });
    expect(listed).toHaveLength(11);
    expect(listed.at(-1)).toBe("  … and 2 more");
  });
});
