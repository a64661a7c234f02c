import {
  createdBefore,
  decideUpgrade,
  haStandsAside,
  JobState,
  UpgradeStatus,
  UpgradeView,
} from "./decide";

const NOW = new Date("2026-12-07T12:00:00Z");
const AT = (s: number): string => new Date(NOW.getTime() - s * 1000).toISOString();

const view = (over: Partial<UpgradeView> = {}): UpgradeView => ({
  wanted: { version: "17", image: "pg:17" },
  data: "15",
  runningImage: "pg:15",
  primary: "orders-1",
  pods: 3,
  primaryServing: false,
  primaryOutdated: false,
  standbyLag: [],
  lastBackupAt: AT(3600),
  checkJob: { state: "absent" },
  convertJob: { state: "absent" },
  commitJob: { state: "absent" },
  backsUp: true,
  now: NOW,
  ...over,
});

const under = (
  phase: UpgradeStatus["phase"],
  over: Partial<UpgradeStatus> = {},
): UpgradeStatus => ({
  from: "15",
  to: "17",
  fromImage: "pg:15",
  primary: "orders-1",
  phase,
  startedAt: AT(120),
  ...over,
});

const succeeded: JobState = { state: "succeeded", message: "Upgraded from PostgreSQL 15 to 17." };

describe("decideUpgrade", () => {
  it.each<[string, Partial<UpgradeView>, Partial<UpgradeStatus> | undefined, string[], string?]>([
    ["nothing asked", { wanted: { version: "15", image: "pg:15" } }, undefined, []],
    [
      "a rise starts with the checks, recording the old image and the primary",
      {},
      { phase: "Checking", from: "15", to: "17", fromImage: "pg:15", primary: "orders-1" },
      ["deleteJobs", "announce"],
    ],
    [
      "a rise during a failover waits",
      { busyWith: "the failover of orders-0" },
      {
        phase: "Waiting",
        message:
          "Waiting for the failover of orders-0 to end before checking and stopping the instances",
      },
      ["deleteJobs", "announce"],
    ],
    [
      "a rise with no backup of the old major takes one first, and waits for it",
      { lastBackupAt: undefined },
      { phase: "Waiting", message: expect.stringContaining("a full backup of PostgreSQL 15") },
      ["deleteJobs", "announce", "createBackupBefore"],
    ],
    [
      "waiting for that backup: nothing new to say or do while it runs",
      {
        upgrade: under("Waiting", {
          message: "Waiting for the Backup b to end before checking and stopping the instances",
        }),
        busyWith: "the Backup b",
        lastBackupAt: undefined,
        backupBefore: { phase: "Running" },
      },
      undefined,
      [],
    ],
    [
      "the backup done: the checks",
      { upgrade: under("Waiting"), backupBefore: { phase: "Completed" } },
      { phase: "Checking" },
      [],
    ],
    [
      "archiving broken meanwhile: the checks wait for it, after they passed",
      {
        upgrade: under("Checking"),
        checkJob: { state: "succeeded", message: "" },
        archivingProblem: "the store refuses the keys",
      },
      { phase: "Checking", message: expect.stringContaining("the store refuses the keys") },
      [],
    ],
    ["the failed rise is not tried again by itself", { upgrade: under("Failed") }, undefined, []],
    [
      "a rise after a cancelled one starts anew",
      { upgrade: under("Cancelled") },
      { phase: "Checking" },
      ["deleteJobs", "announce"],
    ],
    [
      "waiting ends when the operation did: the checks, on the primary as it is now",
      { upgrade: under("Waiting", { primary: "orders-0" }) },
      { phase: "Checking", primary: "orders-1" },
      [],
    ],
    [
      "checking: the check Job is made (after the start deleted earlier ones)",
      { upgrade: under("Checking") },
      undefined,
      ["createCheckJob"],
    ],
    [
      "checking: an earlier upgrade's check Job still there is deleted first",
      { upgrade: under("Checking"), checkJob: { state: "stale" } },
      undefined,
      ["deleteJobs"],
    ],
    [
      "checking: the Job running, nothing stops",
      { upgrade: under("Checking"), checkJob: { state: "running" } },
      undefined,
      [],
    ],
    [
      "a refusal by the checks fails the upgrade with nothing stopped, naming what to do",
      {
        upgrade: under("Checking"),
        checkJob: { state: "failed", message: "The upgrade cannot run: adminpack." },
      },
      {
        phase: "Failed",
        message:
          "Refused by the checks; nothing was stopped and PostgreSQL 15 serves on. The upgrade cannot run: adminpack. Set spec.version back to 15, then raise it again to check anew.",
        finishedAt: NOW.toISOString(),
      },
      ["announce"],
    ],
    [
      "a check pod gone without a word: refused all the same",
      { upgrade: under("Checking"), checkJob: { state: "failed", message: "" } },
      { phase: "Failed", message: expect.stringContaining("ended without a reason") },
      ["announce"],
    ],
    [
      "checked: every instance stops, the check's words kept",
      { upgrade: under("Checking"), checkJob: { state: "succeeded", message: "It can run." } },
      {
        phase: "Stopping",
        message: "It can run. Stopping every instance (the primary with a checkpoint)",
      },
      ["announce"],
    ],
    [
      "checked, but a backup began meanwhile: it waits, the check standing",
      {
        upgrade: under("Checking"),
        checkJob: { state: "succeeded", message: "" },
        busyWith: "the Backup b",
      },
      { phase: "Checking", message: expect.stringContaining("Waiting for the Backup b") },
      [],
    ],
    [
      "checked, and a failover moved the primary meanwhile: the new one is stopped and converted",
      {
        upgrade: under("Checking", { primary: "orders-0" }),
        checkJob: { state: "succeeded", message: "" },
      },
      { phase: "Stopping", primary: "orders-1" },
      ["announce"],
    ],
    [
      "set back while checking: cancelled",
      {
        upgrade: under("Checking"),
        wanted: { version: "15", image: "pg:15" },
        checkJob: { state: "running" },
      },
      { phase: "Cancelled" },
      ["announce"],
    ],
    ["stopping waits for the last pod", { upgrade: under("Stopping"), pods: 1 }, undefined, []],
    [
      "every pod gone: the conversion Job, and the stop time",
      { upgrade: under("Stopping"), pods: 0 },
      { phase: "Upgrading", stoppedAt: NOW.toISOString() },
      ["createConvertJob"],
    ],
    [
      "a conversion Job missing (operator restarted between) is created",
      { upgrade: under("Upgrading"), pods: 0 },
      undefined,
      ["createConvertJob"],
    ],
    [
      "an earlier upgrade's Job still there (its deletion failed): deleted, never read",
      { upgrade: under("Upgrading"), pods: 0, convertJob: { state: "stale" } },
      undefined,
      ["deleteJobs"],
    ],
    [
      "an earlier upgrade's commit Job still there: deleted before this one's",
      {
        upgrade: under("Finishing", { servingAt: AT(10) }),
        data: "17",
        backsUp: false,
        commitJob: { state: "stale" },
      },
      undefined,
      ["deleteJobs"],
    ],
    [
      "the Job running: nothing",
      { upgrade: under("Upgrading"), pods: 0, convertJob: { state: "running" } },
      undefined,
      [],
    ],
    [
      "the Job failed: the old major comes back, with pg_upgrade's reason",
      {
        upgrade: under("Upgrading"),
        pods: 0,
        convertJob: { state: "failed", message: "pg_upgrade failed: x" },
      },
      { phase: "Failed", message: "pg_upgrade failed: x", finishedAt: NOW.toISOString() },
      ["announce"],
    ],
    [
      "the Job succeeded: the data is the new major's",
      { upgrade: under("Upgrading"), pods: 0, convertJob: succeeded },
      { phase: "Starting" },
      ["announce"],
      "17",
    ],
    [
      "starting waits for the primary",
      { upgrade: under("Starting", { stoppedAt: AT(40) }), data: "17" },
      undefined,
      [],
    ],
    [
      "the primary serves: the downtime, and a backup",
      { upgrade: under("Starting", { stoppedAt: AT(40) }), data: "17", primaryServing: true },
      { phase: "Finishing", servingAt: NOW.toISOString(), downtimeSeconds: 40 },
      ["createBackup"],
    ],
    [
      "no object store: the commit at once",
      {
        upgrade: under("Starting", { stoppedAt: AT(40) }),
        data: "17",
        primaryServing: true,
        backsUp: false,
      },
      { phase: "Finishing", downtimeSeconds: 40 },
      ["createCommitJob"],
    ],
    [
      "finishing: the Backup not made yet (operator restarted between) is made",
      { upgrade: under("Finishing", { servingAt: AT(10) }), data: "17" },
      undefined,
      ["createBackup"],
    ],
    [
      "a Backup older than the new major does not count",
      {
        upgrade: under("Finishing", { servingAt: AT(10), backup: "b" }),
        data: "17",
        backup: { phase: "Running" },
        lastBackupAt: AT(600),
      },
      undefined,
      [],
    ],
    [
      "the backup failed: the old data is kept, and why",
      {
        upgrade: under("Finishing", { servingAt: AT(10), backup: "b" }),
        data: "17",
        backup: { phase: "Failed", error: "store down" },
      },
      {
        phase: "Finishing",
        message:
          "The backup of PostgreSQL 17 failed (store down); the old data directory is kept until a Backup of this Database completes",
      },
      [],
    ],
    [
      "backed up: the commit",
      {
        upgrade: under("Finishing", { servingAt: AT(10), backup: "b" }),
        data: "17",
        backup: { phase: "Completed" },
        lastBackupAt: AT(2),
      },
      undefined,
      ["createCommitJob"],
    ],
    [
      "committed: succeeded",
      {
        upgrade: under("Finishing", { servingAt: AT(10) }),
        data: "17",
        backsUp: false,
        commitJob: { state: "succeeded", message: "" },
      },
      { phase: "Succeeded", finishedAt: NOW.toISOString() },
      ["deleteJobs", "announce"],
    ],
    [
      "set back before the conversion: cancelled",
      { upgrade: under("Stopping"), wanted: { version: "15", image: "pg:15" }, pods: 1 },
      { phase: "Cancelled", message: "spec.version was set back to 15" },
      ["announce"],
    ],
    [
      "set back after a failure: cancelled, the failure kept in the message",
      {
        upgrade: under("Failed", { message: "pg_upgrade failed: x", finishedAt: AT(5) }),
        wanted: { version: "15", image: "pg:15" },
      },
      {
        phase: "Cancelled",
        message: "spec.version was set back to 15. pg_upgrade failed: x",
        finishedAt: AT(5),
      },
      ["announce"],
    ],
    [
      "set back while converting: the conversion goes on (the webhook refuses it; CEL cannot)",
      {
        upgrade: under("Upgrading"),
        wanted: { version: "15", image: "pg:15" },
        pods: 0,
        convertJob: { state: "running" },
      },
      undefined,
      [],
    ],
  ])("%s", (...row) => {
    // A rest parameter: jest would take a fifth declared parameter for its done callback.
    const [, over, expected, effects, version] = row;
    const decision = decideUpgrade(view(over));
    if (expected === undefined) expect(decision.upgrade).toBeUndefined();
    else expect(decision.upgrade).toMatchObject(expected);
    expect(decision.effects).toEqual(effects);
    expect(decision.version).toBe(version);
  });

  it.each<[UpgradeStatus["phase"] | undefined, boolean]>([
    [undefined, false],
    ["Waiting", false],
    ["Checking", false],
    ["Stopping", true],
    ["Upgrading", true],
    ["Starting", true],
    ["Finishing", false],
    ["Failed", false],
  ])("high availability stands aside in %s: %s", (phase, aside) => {
    expect(haStandsAside(phase ? under(phase) : undefined)).toBe(aside);
  });
});

describe("createdBefore (an earlier upgrade's Job)", () => {
  it.each<[string, string | undefined, boolean]>([
    ["2026-12-07T11:59:59Z", "2026-12-07T12:00:00.400Z", true],
    ["2026-12-07T12:00:00Z", "2026-12-07T12:00:00.400Z", false],
    ["2026-12-07T12:00:05Z", "2026-12-07T12:00:00.400Z", false],
    ["", "2026-12-07T12:00:00.400Z", false],
    ["2026-12-07T11:00:00Z", undefined, false],
  ])("created %s, upgrade started %s: %s", (created, started, stale) => {
    expect(createdBefore(created, started)).toBe(stale);
  });
});
