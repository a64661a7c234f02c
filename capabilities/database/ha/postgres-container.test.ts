import type { KubeObject } from "../cluster/objects";
import { PostgresContainer, postgresContainerOf } from "./postgres-container";

const pod = (postgres?: Record<string, unknown>): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "orders-0" },
  status: {
    containerStatuses: [
      // another container's crash loop is not the instance's
      { name: "pgbackrest", restartCount: 4, state: { waiting: { reason: "CrashLoopBackOff" } } },
      ...(postgres ? [{ name: "postgres", ...postgres }] : []),
    ],
  },
});

const STARTED = "2026-12-06T15:00:00Z";

describe("postgresContainerOf", () => {
  it.each<[string, KubeObject, PostgresContainer]>([
    ["no status yet", { apiVersion: "v1", kind: "Pod" }, {}],
    ["no postgres container status", pod(), {}],
    ["first run", pod({ restartCount: 0, state: { running: { startedAt: STARTED } } }), {}],
    [
      "restarted in place by the kubelet",
      pod({ restartCount: 1, state: { running: { startedAt: STARTED } } }),
      { restartedAt: Date.parse(STARTED) },
    ],
    [
      "the start time as the client library's Date",
      pod({ restartCount: 2, state: { running: { startedAt: new Date(STARTED) } } }),
      { restartedAt: Date.parse(STARTED) },
    ],
    [
      "waiting out a crash-loop backoff",
      pod({ restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff" } } }),
      { crashLooping: true },
    ],
    [
      "waiting for another reason (being created)",
      pod({ restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }),
      {},
    ],
    [
      "the image it was started with (the spec's: the status may name another tag of it) and its digest",
      {
        ...pod({
          image: "registry/postgres:15",
          imageID: "registry/postgres@sha256:abc",
          state: { running: { startedAt: STARTED } },
        }),
        spec: { containers: [{ name: "postgres", image: "registry/postgres:15-next" }] },
      },
      { image: "registry/postgres:15-next", imageID: "registry/postgres@sha256:abc" },
    ],
    [
      "its entrypoint refused to start: waiting to be started again",
      pod({
        restartCount: 3,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { exitCode: 1, message: "  the image runs PostgreSQL 17\n" } },
      }),
      { crashLooping: true, startRefused: "the image runs PostgreSQL 17" },
    ],
    [
      "its entrypoint refused to start: just ended",
      pod({ state: { terminated: { exitCode: 1, message: "the data directory is 15's" } } }),
      { startRefused: "the data directory is 15's" },
    ],
    [
      "running again: an earlier refusal is history",
      pod({
        restartCount: 1,
        state: { running: { startedAt: STARTED } },
        lastState: { terminated: { exitCode: 1, message: "the image runs PostgreSQL 17" } },
      }),
      { restartedAt: Date.parse(STARTED) },
    ],
    [
      "ended without a word (killed, out of memory): no refusal to report",
      pod({
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { exitCode: 137 } },
      }),
      { crashLooping: true },
    ],
    [
      "ended cleanly (a fast shutdown): no refusal",
      pod({ state: { terminated: { exitCode: 0, message: "bye" } } }),
      {},
    ],
    [
      "an unreadable start time is no restart time",
      pod({ restartCount: 1, state: { running: { startedAt: "soon" } } }),
      {},
    ],
  ])("%s", (_case, given, expected) => {
    expect(postgresContainerOf(given)).toEqual(expected);
  });
});
