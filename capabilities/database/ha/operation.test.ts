import { KubeObject } from "../reconcile/cluster";
import { stoppedForGood } from "./operation";

const pod = (deletion: string | undefined, grace: number, finished: (string | undefined)[]) =>
  ({
    metadata: {
      name: "db-0",
      ...(deletion ? { deletionTimestamp: deletion, deletionGracePeriodSeconds: grace } : {}),
    },
    status: {
      containerStatuses: finished.map(f =>
        f ? { state: { terminated: { finishedAt: f } } } : { state: { running: {} } },
      ),
    },
  }) as unknown as KubeObject;

describe("stoppedForGood: the old primary's pod cannot run postgres any more", () => {
  it.each<[string, KubeObject, boolean]>([
    ["not being deleted", pod(undefined, 0, ["2026-11-29T10:00:05Z"]), false],
    ["deleted, container still running", pod("2026-11-29T10:00:01Z", 1, [undefined]), false],
    [
      "deleted (1 s grace), container ended after the request",
      pod("2026-11-29T10:00:01Z", 1, ["2026-11-29T10:00:01Z"]),
      true,
    ],
    [
      "container ended before the request (a crash the kubelet may have restarted)",
      pod("2026-11-29T10:00:31Z", 30, ["2026-11-29T09:59:59Z"]),
      false,
    ],
    ["no container status yet", pod("2026-11-29T10:00:01Z", 1, []), false],
  ])("%s → %p", (_, p, expected) => {
    expect(stoppedForGood(p)).toBe(expected);
  });
});
