import { jobOutcome } from "./backup-result";

// The shape of `pgbackrest info --set=<label> --output=json` (2.45), trimmed to what is read.
const INFO = [
  {
    name: "db",
    backup: [
      {
        label: "20261202-160102F",
        type: "full",
        timestamp: { start: 1796227262, stop: 1796227270 },
        lsn: { start: "0/4000028", stop: "0/4000138" },
        archive: { start: "000000010000000000000004", stop: "000000010000000000000004" },
        info: {
          size: 31_457_280,
          delta: 31_457_280,
          repository: { size: 4_194_304, delta: 4_194_304 },
        },
      },
    ],
  },
];

describe("jobOutcome", () => {
  it("reads the backup's facts from pgBackRest's info", () => {
    const message = JSON.stringify({
      label: "20261202-160102F",
      oldestStop: 1796140800,
      info: INFO,
    });
    expect(jobOutcome(message)).toEqual({
      facts: {
        label: "20261202-160102F",
        type: "full",
        startedAt: "2026-12-02T16:01:02.000Z",
        stoppedAt: "2026-12-02T16:01:10.000Z",
        beginLSN: "0/4000028",
        endLSN: "0/4000138",
        beginWAL: "000000010000000000000004",
        endWAL: "000000010000000000000004",
        sizeBytes: 31_457_280,
        repositorySizeBytes: 4_194_304,
        firstRecoverabilityPoint: "2026-12-01T16:00:00.000Z",
      },
    });
  });

  it.each<[string, string | undefined, RegExp]>([
    ["no message", undefined, /without a result/],
    ["empty", "  ", /without a result/],
    ["truncated", '{"label":"2026', /does not parse/],
    ["pgBackRest's error", '{"error":"ERROR: [056]: unable to find primary cluster"}', /\[056\]/],
    ["no label", '{"info":[]}', /names no backup/],
  ])("%s → error", (_title, message, error) => {
    const outcome = jobOutcome(message);
    expect("error" in outcome && outcome.error).toMatch(error);
  });

  it("keeps the label when the info was too long for the pod status", () => {
    expect(jobOutcome('{"label":"20261202-160102F"}')).toEqual({
      facts: { label: "20261202-160102F" },
    });
  });
});
