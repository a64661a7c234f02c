import type { KubeObject } from "../cluster/cluster";
import { BackupScene, decideBackup, jobNameFor } from "./backup-step";

const NOW = new Date("2026-12-02T16:00:00Z");
const backup = (
  status: Record<string, unknown> = {},
  spec: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion: "pgkeeper.dev/v1alpha1",
  kind: "Backup",
  metadata: { name: "nightly", namespace: "shop" },
  spec: { database: "orders", ...spec },
  status,
});
const job = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "nightly", namespace: "shop" },
  status,
});
const podWith = (message: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "nightly-x" },
  status: { containerStatuses: [{ state: { terminated: { exitCode: 0, message } } }] },
});
const INFO = [
  {
    backup: [
      {
        label: "20261202-160102F",
        type: "full",
        timestamp: { start: 1796227262, stop: 1796227272 },
        lsn: { start: "0/4000028", stop: "0/4000138" },
        archive: { start: "000000010000000000000004", stop: "000000010000000000000004" },
        info: { size: 100, repository: { delta: 10 } },
      },
    ],
  },
];
const scene = (over: Partial<BackupScene>): BackupScene => ({
  backup: backup(),
  archiving: true,
  repositoryPath: "/shop/orders/u1",
  primary: "orders-0",
  standbys: ["orders-1"],
  now: NOW,
  ...over,
});

describe("decideBackup", () => {
  it.each<[string, Partial<BackupScene>, object]>([
    [
      "a new Backup starts a Job copying from the standby",
      {},
      {
        action: "start",
        job: "nightly",
        instances: ["orders-0", "orders-1"],
        status: { phase: "Running", instance: "orders-1", job: "nightly" },
      },
    ],
    [
      "target primary copies from the primary",
      { backup: backup({}, { target: "primary" }) },
      { action: "start", instances: ["orders-0"], status: { instance: "orders-0" } },
    ],
    [
      "no streaming standby: from the primary",
      { standbys: [] },
      { action: "start", instances: ["orders-0"] },
    ],
    [
      "no ready primary (or a failover under way): waits",
      { primary: undefined },
      {
        action: "status",
        status: { phase: "Pending", message: expect.stringMatching(/ready primary/) },
      },
    ],
    [
      "another backup runs: waits for it",
      { busyWith: "hourly" },
      { action: "status", status: { phase: "Pending", message: "waits for Backup hourly" } },
    ],
    [
      "no object store: fails, saying so",
      { archiving: false },
      {
        action: "status",
        status: { phase: "Failed", message: expect.stringMatching(/objectStore/) },
      },
    ],
    [
      "its Job runs: Running",
      { backup: backup({ phase: "Pending" }), job: job({ active: 1 }) },
      { action: "status", status: { phase: "Running" } },
    ],
    [
      "Running and the Job still runs: nothing to write",
      { backup: backup({ phase: "Running", job: "nightly" }), job: job({ active: 1 }) },
      { action: "none" },
    ],
    [
      "the Job succeeded: Completed with pgBackRest's facts",
      {
        backup: backup({ phase: "Running" }, { verify: true }),
        job: job({ succeeded: 1 }),
        jobPod: podWith(JSON.stringify({ label: "20261202-160102F", info: INFO })),
      },
      {
        action: "status",
        status: {
          phase: "Completed",
          label: "20261202-160102F",
          type: "full",
          beginLSN: "0/4000028",
          endLSN: "0/4000138",
          beginWAL: "000000010000000000000004",
          sizeBytes: 100,
          repositorySizeBytes: 10,
          durationSeconds: 10,
          verified: true,
          completedAt: NOW.toISOString(),
        },
      },
    ],
    [
      "the Job failed: Failed with pgBackRest's words",
      {
        backup: backup({ phase: "Running" }),
        job: job({ failed: 1 }),
        jobPod: podWith('{"error":"ERROR: [056]: unable to find primary cluster"}'),
      },
      { action: "status", status: { phase: "Failed", message: expect.stringMatching(/\[056\]/) } },
    ],
    [
      "the Job failed with no result (killed)",
      { backup: backup({ phase: "Running" }), job: job({ failed: 1 }) },
      {
        action: "status",
        status: { phase: "Failed", message: expect.stringMatching(/without a result/) },
      },
    ],
    [
      "its Job vanished while Running",
      { backup: backup({ phase: "Running", job: "nightly" }) },
      {
        action: "status",
        status: { phase: "Failed", message: expect.stringMatching(/deleted before/) },
      },
    ],
    [
      "no such Database (not yet, or deleted): waits for it, never starts",
      { databaseMissing: true, archiving: false, primary: undefined },
      {
        action: "status",
        status: {
          phase: "Pending",
          message: "waits for Database orders, which does not exist in namespace shop",
        },
      },
    ],
    [
      "the Database deleted while its Job ran: the Job's outcome, not a wait",
      {
        databaseMissing: true,
        archiving: false,
        backup: backup({ phase: "Running", job: "nightly" }),
        job: job({ failed: 1 }),
        jobPod: podWith('{"error":"ERROR: [056]: unable to find primary cluster"}'),
      },
      { action: "status", status: { phase: "Failed", message: expect.stringMatching(/\[056\]/) } },
    ],
    [
      "objectStore removed while its Job ran: the Job's outcome",
      {
        archiving: false,
        backup: backup({ phase: "Running", job: "nightly" }),
        job: job({ succeeded: 1 }),
        jobPod: podWith(JSON.stringify({ label: "20261202-160102F", info: INFO })),
      },
      { action: "status", status: { phase: "Completed", label: "20261202-160102F" } },
    ],
    [
      "Completed stays Completed",
      { backup: backup({ phase: "Completed" }), archiving: false },
      { action: "none" },
    ],
    [
      "Failed stays Failed",
      { backup: backup({ phase: "Failed" }), job: job({ succeeded: 1 }) },
      { action: "none" },
    ],
  ])("%s", (_title, over, expected) => {
    expect(decideBackup(scene(over))).toMatchObject(expected);
  });

  it("writes nothing when the status is already what it would write", () => {
    const waiting = backup({ phase: "Pending", message: "waits for Backup hourly" });
    expect(decideBackup(scene({ backup: waiting, busyWith: "hourly" }))).toEqual({
      action: "none",
    });
  });
});

describe("jobNameFor", () => {
  it.each([
    ["nightly", "nightly"],
    ["a".repeat(63), "a".repeat(63)],
  ])("%s fits as it is", (name, expected) => expect(jobNameFor(name)).toBe(expected));

  it("shortens a long name to 63 characters, distinct per name", () => {
    const a = jobNameFor(`${"b".repeat(70)}-1`);
    const b = jobNameFor(`${"b".repeat(70)}-2`);
    expect(a.length).toBeLessThanOrEqual(63);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});
