import { decideRestart, RestartDecision, RestartStatus, RestartView } from "./decide";

const NOW = new Date("2026-12-07T12:00:00Z");
const ASKED = "2026-12-07T11:58:00.000Z";
const restarting: RestartStatus = { request: "r1", requestedAt: ASKED, phase: "Restarting" };
/** Instances running a pod of the template that carries the request's time, or of an older one. */
const back = (n: number) => Array.from({ length: n }, () => ({ restartedAt: ASKED, ready: true }));
const before = (n: number) => Array.from({ length: n }, () => ({ ready: true }));

const view = (over: Partial<RestartView>): RestartView => ({
  instances: 3,
  pods: before(3),
  now: NOW,
  ...over,
});

describe("decideRestart", () => {
  it.each<[string, Partial<RestartView>, Partial<RestartDecision>]>([
    ["nothing asked", {}, { removeAnnotation: false, restart: undefined }],
    [
      "an annotation: recorded, the time the template will carry",
      { request: "r1" },
      {
        restart: { request: "r1", requestedAt: NOW.toISOString(), phase: "Restarting" },
        removeAnnotation: false,
        event: expect.stringContaining("replicas first"),
      },
    ],
    [
      "restarting: two of three back",
      { request: "r1", restart: restarting, pods: [...back(2), ...before(1)] },
      { restart: undefined, removeAnnotation: false },
    ],
    [
      "restarting: all back but one not ready",
      {
        request: "r1",
        restart: restarting,
        pods: [...back(2), { restartedAt: ASKED, ready: false }],
      },
      { restart: undefined, removeAnnotation: false },
    ],
    [
      "restarting: a pod missing (recreated by the StatefulSet) is not back",
      { request: "r1", restart: restarting, pods: back(2) },
      { restart: undefined, removeAnnotation: false },
    ],
    [
      "every instance back and ready: done, the annotation removed",
      { request: "r1", restart: restarting, pods: back(3) },
      {
        restart: { ...restarting, phase: "Done", finishedAt: NOW.toISOString() },
        removeAnnotation: true,
        event: expect.stringContaining("Every instance restarted"),
      },
    ],
    [
      "done while the annotation asks anew: kept, for the next restart",
      { request: "r2", restart: restarting, pods: back(3) },
      {
        restart: { ...restarting, phase: "Done", finishedAt: NOW.toISOString() },
        removeAnnotation: false,
      },
    ],
    [
      "done, the annotation's removal missed: removed, nothing restarts",
      { request: "r1", restart: { ...restarting, phase: "Done" } },
      { restart: undefined, removeAnnotation: true },
    ],
    [
      "a new value after a restart: a new restart",
      { request: "r2", restart: { ...restarting, phase: "Done" } },
      { restart: { request: "r2", requestedAt: NOW.toISOString(), phase: "Restarting" } },
    ],
    [
      "the annotation removed by hand while restarting: the restart goes on",
      { restart: restarting, pods: back(2) },
      { restart: undefined, removeAnnotation: false },
    ],
  ])("%s", (_, over, expected) => {
    const decision = decideRestart(view(over));
    const { restart, ...rest } = expected;
    expect(decision).toMatchObject(rest);
    // `restart: undefined` in a row: nothing to record.
    if ("restart" in expected) expect(decision.restart).toEqual(restart);
  });
});
