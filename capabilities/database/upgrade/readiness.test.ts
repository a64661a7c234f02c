import { MAX_STANDBY_LAG_BYTES, ReadinessView, upgradeWaitsFor, Wait } from "./readiness";

const ready: ReadinessView = {
  data: "15",
  primary: "orders-1",
  primaryOutdated: false,
  standbyLag: [
    { name: "orders-0", bytes: 0 },
    { name: "orders-2", bytes: 8192 },
  ],
  backsUp: true,
  lastBackupAt: "2026-12-07T11:00:00Z",
};

describe("what a major upgrade waits for before it checks and stops", () => {
  it.each<[string, Partial<ReadinessView>, Wait | undefined]>([
    ["nothing: it goes on", {}, undefined],
    [
      "an operation",
      { busyWith: "the switchover of orders-0" },
      { what: "the switchover of orders-0 to end" },
    ],
    [
      "the primary on an older configuration (the check reaches it through the volume's socket)",
      { primaryOutdated: true },
      { what: "orders-1 to restart onto the Database's current configuration" },
    ],
    [
      "a standby behind by more than a segment",
      { standbyLag: [{ name: "orders-2", bytes: MAX_STANDBY_LAG_BYTES + 1 }] },
      {
        what: "orders-2 to catch up (16 MiB behind; the primary's clean stop waits for its standbys)",
      },
    ],
    [
      "a standby behind by exactly a segment: goes on",
      { standbyLag: [{ name: "orders-2", bytes: MAX_STANDBY_LAG_BYTES }] },
      undefined,
    ],
    [
      "archiving failing",
      { archivingProblem: "archive_command failed for 000000010000000000000007" },
      {
        what: "continuous archiving to work again (archive_command failed for 000000010000000000000007)",
      },
    ],
    [
      "no backup yet: it takes one",
      { lastBackupAt: undefined },
      {
        what: "a full backup of PostgreSQL 15 (no Backup of PostgreSQL 15 has completed, and after the upgrade the way back is a restore from one)",
        takeBackup: true,
      },
    ],
    [
      "the backup it took is running",
      { lastBackupAt: undefined, backupBefore: { phase: "Running" } },
      {
        what: "a full backup of PostgreSQL 15 (no Backup of PostgreSQL 15 has completed, and after the upgrade the way back is a restore from one)",
      },
    ],
    [
      "the backup it took failed: what to do",
      { lastBackupAt: undefined, backupBefore: { phase: "Failed", error: "store down" } },
      {
        what: "a completed Backup of PostgreSQL 15: the one taken for the upgrade failed (store down); create a Backup, or delete that one to take it again",
      },
    ],
    [
      "no object store: no archive or backup to wait for",
      { backsUp: false, lastBackupAt: undefined, archivingProblem: "x" },
      undefined,
    ],
    [
      "the operation first, when several hold it up",
      { busyWith: "the Backup b", primaryOutdated: true, lastBackupAt: undefined },
      { what: "the Backup b to end" },
    ],
  ])("%s", (_, over, wait) => {
    expect(upgradeWaitsFor({ ...ready, ...over })).toEqual(wait);
  });
});
