import { operatorEntries } from "../e2e/diagnosis";

const HOST_LOG = [
  "[10:00:00.100] INFO: Reconciled",
  '    database: "ns/db"',
  "[10:00:01.200] INFO: Reconciled",
  '    database: "ns/other"',
  "[10:00:02.300] WARN: Lease acquire/renew attempt failed",
  '    error: "conflict"',
].join("\n");

const POD_LOG = [
  '{"level":30,"time":1,"database":"ns/db","msg":"Reconciled"}',
  '{"level":30,"time":2,"database":"ns/other","msg":"Reconciled"}',
  '{"level":40,"time":3,"msg":"Lease acquire/renew attempt failed"}',
  '{"level":50,"time":4,"msg":"Could not install the CRDs; retrying"}',
].join("\n");

describe("operatorEntries", () => {
  it.each([
    [
      "pepr dev's pretty-printed entries",
      HOST_LOG,
      [
        '[10:00:00.100] INFO: Reconciled\n    database: "ns/db"',
        '[10:00:02.300] WARN: Lease acquire/renew attempt failed\n    error: "conflict"',
      ],
    ],
    [
      "an installed watcher's JSON lines",
      POD_LOG,
      [
        '{"level":30,"time":1,"database":"ns/db","msg":"Reconciled"}',
        '{"level":40,"time":3,"msg":"Lease acquire/renew attempt failed"}',
        '{"level":50,"time":4,"msg":"Could not install the CRDs; retrying"}',
      ],
    ],
  ])("keeps the Database's entries and every warning or error: %s", (_what, log, expected) => {
    expect(operatorEntries(log, "ns/db", 10)).toBe(expected.join("\n"));
  });

  it("keeps only the last `count`", () => {
    expect(operatorEntries(POD_LOG, "ns/db", 1)).toBe(
      '{"level":50,"time":4,"msg":"Could not install the CRDs; retrying"}',
    );
  });
});
