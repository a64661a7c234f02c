import type { KubeObject } from "../cluster/cluster";
import { summarizeBackups } from "./backup-summary";

const backup = (name: string, status: Record<string, unknown>): KubeObject => ({
  apiVersion: "pgkeeper.dev/v1alpha1",
  kind: "Backup",
  metadata: { name },
  status,
});
const done = (name: string, at: string, extra: Record<string, unknown> = {}) =>
  backup(name, {
    phase: "Completed",
    completedAt: at,
    label: `${name}-label`,
    stoppedAt: at,
    firstRecoverabilityPoint: "2026-11-01T03:00:00.000Z",
    ...extra,
  });
const failed = (name: string, at: string) =>
  backup(name, { phase: "Failed", completedAt: at, message: "ERROR: [056]" });

describe("summarizeBackups", () => {
  it.each<[string, KubeObject[], object]>([
    ["none", [], {}],
    ["only unfinished", [backup("a", { phase: "Running" })], {}],
    [
      "a success",
      [done("a", "2026-12-01T03:00:00Z")],
      {
        lastSuccessfulBackup: { name: "a", label: "a-label", time: "2026-12-01T03:00:00Z" },
        firstRecoverabilityPoint: "2026-11-01T03:00:00.000Z",
        condition: { status: "True", reason: "BackupCompleted" },
      },
    ],
    [
      "a failure after a success: the success stays, the condition says the failure",
      [failed("b", "2026-12-02T03:00:00Z"), done("a", "2026-12-01T03:00:00Z")],
      {
        lastSuccessfulBackup: { name: "a" },
        condition: {
          status: "False",
          reason: "BackupFailed",
          message: "Backup b failed: ERROR: [056]",
        },
      },
    ],
    [
      "a success after a failure",
      [done("c", "2026-12-03T03:00:00Z"), failed("b", "2026-12-02T03:00:00Z")],
      { lastSuccessfulBackup: { name: "c" }, condition: { status: "True" } },
    ],
    ["only failures", [failed("b", "2026-12-02T03:00:00Z")], { condition: { status: "False" } }],
  ])("%s", (_title, backups, expected) => {
    const summary = summarizeBackups(backups);
    expect(summary).toMatchObject(expected);
    if (!("lastSuccessfulBackup" in expected)) expect(summary.lastSuccessfulBackup).toBeUndefined();
  });

  it("says nothing backs up a Database left with only an earlier version's backup volume", () => {
    expect(summarizeBackups([], true)).toEqual({
      condition: {
        status: "False",
        reason: "BackupVolumeRemoved",
        message: expect.stringMatching(/^spec.backup.volume is no longer supported/),
      },
    });
  });
});
