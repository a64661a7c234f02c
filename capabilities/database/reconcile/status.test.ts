import { statusPatch } from "../cluster/database-writer";
import { convergedStatus, failedStatus, ObservedPod } from "./status";

const now = new Date("2026-11-29T10:00:00Z");
const obs = {
  generation: 3,
  desiredInstances: 1,
  primary: "db-0",
  pods: [{ name: "db-0", ready: true }],
};

describe("statusPatch", () => {
  it("is undefined when nothing changed", () => {
    const s = convergedStatus(undefined, obs, now);
    expect(
      statusPatch(s, convergedStatus(s, obs, new Date("2026-11-29T11:00:00Z"))),
    ).toBeUndefined();
  });

  it("removes fields that disappeared with null (merge patch)", () => {
    const failed = failedStatus(undefined, { reason: "X", message: "m", attempts: 1 }, 3, now);
    expect(failed.retry).toBeDefined();
    const patch = statusPatch(failed, convergedStatus(failed, obs, now));
    expect(patch?.retry).toBeNull();
  });
});

describe("backup.repositoryPath", () => {
  it("shows where the archive is while an object store is set, and goes with it", () => {
    const archiving = convergedStatus(undefined, { ...obs, repositoryPath: "/prod/db/1b2c" }, now);
    expect(archiving.backup).toEqual({ repositoryPath: "/prod/db/1b2c" });
    expect(statusPatch(archiving, convergedStatus(archiving, obs, now))?.backup).toBeNull();
  });
});

describe("initializedAt", () => {
  const down = { ...obs, pods: [{ name: "db-0", ready: false }] };
  it("stays unset until a primary is ready, and unset writes nothing", () => {
    const first = convergedStatus(undefined, down, now);
    expect("initializedAt" in first).toBe(false);
    expect(statusPatch(first, convergedStatus(first, down, now))).toBeUndefined();
  });
  it("is the first time a primary was ready, and never moves or goes", () => {
    const first = convergedStatus(undefined, obs, now);
    expect(first.initializedAt).toBe("2026-11-29T10:00:00.000Z");
    const later = new Date("2026-11-30T10:00:00Z");
    expect(convergedStatus(first, down, later).initializedAt).toBe(first.initializedAt);
    expect(convergedStatus(first, obs, later).initializedAt).toBe(first.initializedAt);
  });
});

describe("failedStatus", () => {
  it.each([
    [false, "Pending", true],
    [true, "Failed", false],
  ])("permanent=%s → phase %s, retry info %s", (permanent, phase, hasRetry) => {
    const s = failedStatus(
      undefined,
      { reason: "X", message: "m", attempts: 2, permanent },
      1,
      now,
    );
    expect(s.phase).toBe(phase);
    expect(s.retry !== undefined).toBe(hasRetry);
  });

  it("keeps what was observed before (phase, primary)", () => {
    const ready = convergedStatus(undefined, obs, now);
    const s = failedStatus(ready, { reason: "ApplyFailed", message: "boom", attempts: 1 }, 3, now);
    expect(s).toMatchObject({ phase: "Ready", currentPrimary: "db-0", readyInstances: 1 });
    expect(s.conditions?.find(c => c.type === "Reconciled")).toMatchObject({
      status: "False",
      reason: "ApplyFailed",
    });
  });
});

describe("Ready while an image cannot be pulled", () => {
  const pull: NonNullable<ObservedPod["imagePull"]> = {
    container: "postgres",
    image: "registry.example/postgres:15",
    reason: "ImagePullBackOff",
    message: 'Back-off pulling image "registry.example/postgres:15"',
  };
  const ready = (pods: ObservedPod[]) =>
    convergedStatus(undefined, { ...obs, desiredInstances: 2, pods }, now).conditions?.find(
      c => c.type === "Ready",
    );

  it.each([
    [
      "one pod stuck on its image: the pod, the image and the kubelet's reason",
      [
        { name: "db-0", ready: true },
        { name: "db-1", ready: false, imagePull: pull },
      ],
      "ImagePullBackOff",
      '1/2 instances ready; db-1 cannot pull registry.example/postgres:15 (ImagePullBackOff: Back-off pulling image "registry.example/postgres:15")',
    ],
    [
      "no message from the kubelet",
      [
        {
          name: "db-0",
          ready: false,
          imagePull: { ...pull, reason: "ErrImagePull", message: undefined },
        },
      ],
      "ImagePullBackOff",
      "0/2 instances ready; db-0 cannot pull registry.example/postgres:15 (ErrImagePull)",
    ],
    [
      "pods only starting",
      [{ name: "db-0", ready: false }],
      "InstancesNotReady",
      "0/2 instances ready",
    ],
  ] as [string, ObservedPod[], string, string][])("%s", (_, pods, reason, message) => {
    expect(ready(pods)).toMatchObject({ status: "False", reason, message });
  });
});

describe("Ready waits until -rw routes to the primary", () => {
  const ready = (s: ReturnType<typeof convergedStatus>) =>
    s.conditions?.find(c => c.type === "Ready");

  it.each<[string, boolean | undefined, string | undefined, string, string]>([
    ["routed", true, undefined, "Ready", "AllInstancesReady"],
    ["not asked (it was Ready already)", undefined, "Ready", "Ready", "AllInstancesReady"],
    [
      "not routed, never Ready: still being created",
      false,
      undefined,
      "Creating",
      "ServiceNotRouting",
    ],
    [
      "not routed after a failover: Degraded until it routes",
      false,
      "Degraded",
      "Degraded",
      "ServiceNotRouting",
    ],
  ])("%s", (_, routed, before, phase, reason) => {
    const prev = before ? { phase: before as "Ready" | "Degraded" } : undefined;
    const s = convergedStatus(prev, { ...obs, ...(routed === undefined ? {} : { routed }) }, now);
    expect(s.phase).toBe(phase);
    expect(ready(s)?.reason).toBe(reason);
    if (reason === "ServiceNotRouting")
      expect(ready(s)?.message).toBe(
        "1/1 instances ready; the -rw Service does not route to db-0 yet",
      );
  });
});
