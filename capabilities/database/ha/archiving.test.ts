import { archivingCondition, backlogPastHalf } from "./archiving";
import type { ArchiverState } from "../instance/types";

const state = (over: Partial<ArchiverState>): ArchiverState => ({
  archivedCount: 0,
  failedCount: 0,
  waiting: 0,
  ...over,
});
const ARCHIVED = {
  archivedCount: 3,
  lastArchivedWal: "000000010000000000000003",
  lastArchivedAt: "2026-12-02T10:00:00.000Z",
};
const FAILED = {
  failedCount: 2,
  lastFailedWal: "000000010000000000000004",
  lastFailedAt: "2026-12-02T10:01:00.000Z",
};

describe("archivingCondition", () => {
  it.each<[string, ArchiverState | undefined, string | undefined, string | undefined]>([
    ["no probe of a primary", undefined, undefined, undefined],
    ["nothing archived yet", state({}), "Unknown", "No WAL segment completed"],
    ["archiving", state(ARCHIVED), "True", "Last archived 000000010000000000000003"],
    [
      "failing since the last success",
      state({ ...ARCHIVED, ...FAILED, waiting: 2 }),
      "False",
      "000000010000000000000004 to the object store failed at 2026-12-02T10:01:00.000Z; 2 segment(s) (32 MiB) wait in pg_wal",
    ],
    ["failing before the first success", state({ ...FAILED, waiting: 1 }), "False", "failed"],
    [
      "an image without pgBackRest, whatever pg_stat_archiver says",
      state({ ...ARCHIVED, ...FAILED, waiting: 3, imageHasPgBackRest: false }),
      "False",
      "The primary's image has no pgbackrest, which archiving and backups run: no WAL reaches the object store until spec.image names an image with pgBackRest (pgkeeper's own has it); 3 segment(s) (48 MiB) wait in pg_wal",
    ],
    [
      "an image with pgBackRest",
      state({ ...ARCHIVED, imageHasPgBackRest: true }),
      "True",
      "Last archived",
    ],
    [
      "recovered after failures",
      state({ ...FAILED, ...ARCHIVED, lastArchivedAt: "2026-12-02T10:02:00.000Z" }),
      "True",
      "Last archived",
    ],
  ])("%s", (_, archiver, status, message) => {
    const condition = archivingCondition(archiver);
    expect(condition?.status).toBe(status);
    if (message) expect(condition?.message).toContain(message);
    if (archiver?.imageHasPgBackRest === false) expect(condition?.reason).toBe("PgBackRestMissing");
  });
});

describe("backlogPastHalf", () => {
  it.each<[string, number | undefined, number, boolean]>([
    ["no probe", undefined, 1024 ** 3, false],
    ["nothing waits", 0, 1024 ** 3, false],
    ["just under half of 1 GiB", 31, 1024 ** 3, false],
    ["half of 1 GiB", 32, 1024 ** 3, true],
    ["more", 60, 1024 ** 3, true],
    ["unknown volume size", 60, 0, false],
  ])("%s", (_, waiting, volume, expected) => {
    const archiver = waiting === undefined ? undefined : state({ waiting });
    expect(backlogPastHalf(archiver, volume)).toBe(expected);
  });
});
