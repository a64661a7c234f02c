import type { KubeObject } from "../cluster/objects";
import { recoveryCondition, recoveryStateOf } from "./recovery";

const pod = (postgres: Record<string, unknown>): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "orders-0" },
  status: {
    containerStatuses: [
      { name: "other", restartCount: 9 },
      { name: "postgres", ...postgres },
    ],
  },
});

const MESSAGE =
  "PostgreSQL stopped while recovering: FATAL: recovery ended before configured recovery target was reached";

describe("recoveryStateOf", () => {
  it.each<[string, KubeObject | undefined, ReturnType<typeof recoveryStateOf>]>([
    ["no pod", undefined, undefined],
    ["no container status yet", { apiVersion: "v1", kind: "Pod", status: {} }, undefined],
    [
      "running, never failed",
      pod({ restartCount: 0, state: { running: {} } }),
      { failedAttempts: 0 },
    ],
    [
      "running again after a failed attempt",
      pod({
        restartCount: 2,
        state: { running: {} },
        lastState: {
          terminated: { exitCode: 1, message: `${MESSAGE}\n`, finishedAt: "2026-12-02T12:00:00Z" },
        },
      }),
      { failure: MESSAGE, failedAt: "2026-12-02T12:00:00Z", failedAttempts: 2 },
    ],
    [
      "just failed, first attempt",
      pod({ restartCount: 0, state: { terminated: { exitCode: 1, message: MESSAGE } } }),
      { failure: MESSAGE, failedAttempts: 1 },
    ],
    [
      "an exit without a message (killed, a clean stop) is no failed restore",
      pod({ restartCount: 1, lastState: { terminated: { exitCode: 137 } } }),
      { failedAttempts: 0 },
    ],
    [
      "the container cannot start: the source's Secret is missing",
      pod({
        restartCount: 0,
        state: {
          waiting: { reason: "CreateContainerConfigError", message: 'secret "s3" not found' },
        },
      }),
      {
        failure: 'the container cannot start (CreateContainerConfigError): secret "s3" not found',
        failedAttempts: 1,
      },
    ],
    [
      "waiting to restart after a failure (CrashLoopBackOff) keeps the failure's reason",
      pod({
        restartCount: 4,
        state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s" } },
        lastState: { terminated: { exitCode: 1, message: MESSAGE } },
      }),
      { failure: MESSAGE, failedAttempts: 4 },
    ],
    [
      "exit code 0 with a message is no failure",
      pod({ restartCount: 1, lastState: { terminated: { exitCode: 0, message: "done" } } }),
      { failedAttempts: 0 },
    ],
  ])("%s", (_, input, expected) => {
    expect(recoveryStateOf(input)).toEqual(expected);
  });
});

describe("recoveryCondition", () => {
  const SOURCE = "s3.example/pg:/prod/orders/1b2c";
  it("says nothing without bootstrap.recovery", () => {
    expect(
      recoveryCondition(false, false, { failure: MESSAGE, failedAttempts: 1 }, SOURCE),
    ).toBeUndefined();
  });

  it.each<[string, boolean, Parameters<typeof recoveryCondition>[2], string, string, RegExp]>([
    [
      "restoring",
      false,
      { failedAttempts: 0 },
      "Unknown",
      "Recovering",
      /^Restoring the base backup from s3/,
    ],
    ["no pod yet", false, undefined, "Unknown", "Recovering", /replaying its WAL archive$/],
    [
      "failed",
      false,
      { failure: MESSAGE, failedAt: "2026-12-02T12:00:00Z", failedAttempts: 3 },
      "False",
      "RecoveryFailed",
      /failed \(attempt 3, 2026-12-02T12:00:00Z\): PostgreSQL stopped while recovering: .*never initialises an empty database/,
    ],
    [
      "recovered, an old failure forgotten",
      true,
      { failure: MESSAGE, failedAttempts: 3 },
      "True",
      "Recovered",
      /^Restored from s3/,
    ],
  ])("%s", (...[, initialized, state, status, reason, message]) => {
    const condition = recoveryCondition(true, initialized, state, SOURCE);
    expect(condition).toMatchObject({ type: "Recovered", status, reason });
    expect(condition?.message).toMatch(message);
  });
});
