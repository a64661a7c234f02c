import { InstanceView } from "./decide";
import { InstanceProbe } from "../instance/types";
import { notServingReason } from "./serving";

const probe = (over: Partial<InstanceProbe> = {}): InstanceProbe => ({
  inRecovery: true,
  timeline: 2,
  lsn: "0/3000000",
  walReceiverStatus: "streaming",
  postmasterStartTime: "t0",
  pendingRestart: [],
  standbys: [],
  ...over,
});
const view = (p: InstanceProbe | undefined, ready = true, ok = true): InstanceView => ({
  name: "db-1",
  ordinal: 1,
  pod: { uid: "u", ready, terminating: false },
  ...(p ? { sql: { ok, failures: ok ? 0 : 3, probe: p } } : {}),
});
const primary = view(probe({ inRecovery: false, lsn: "0/3000000", walReceiverStatus: undefined }));
const MiB = 1024 * 1024;
const behind = (bytes: number) => `0/${(0x3000000 - bytes).toString(16).toUpperCase()}`;

describe("notServingReason", () => {
  it.each<[string, InstanceView, InstanceView | undefined, boolean, string | undefined]>([
    ["streaming, caught up", view(probe()), primary, true, undefined],
    ["pod not ready", view(probe(), false), primary, true, "not ready"],
    ["no answer", view(probe(), true, false), primary, true, "not answering SQL probes"],
    ["never probed", view(undefined), primary, true, "not answering SQL probes"],
    [
      "WAL receiver stopped",
      view(probe({ walReceiverStatus: undefined })),
      primary,
      true,
      "not streaming (WAL receiver not running)",
    ],
    [
      "diverged: an older timeline",
      view(probe({ timeline: 1, walReceiverStatus: "waiting" })),
      primary,
      true,
      "not streaming (WAL receiver waiting)",
    ],
    [
      "streaming from the wrong timeline",
      view(probe({ timeline: 1 })),
      primary,
      true,
      "on timeline 1, the primary on 2",
    ],
    [
      "3 MiB behind, serving, limit 4 MiB",
      view(probe({ lsn: behind(3 * MiB) })),
      primary,
      true,
      undefined,
    ],
    [
      "5 MiB behind, limit 4 MiB",
      view(probe({ lsn: behind(5 * MiB) })),
      primary,
      true,
      `more than ${4 * MiB} bytes behind the primary`,
    ],
    [
      "3 MiB behind, not serving: comes back only within 2 MiB",
      view(probe({ lsn: behind(3 * MiB) })),
      primary,
      false,
      `more than ${2 * MiB} bytes behind the primary`,
    ],
    [
      "1 MiB behind, not serving: comes back",
      view(probe({ lsn: behind(MiB) })),
      primary,
      false,
      undefined,
    ],
    ["primary down, serving: stays", view(probe()), undefined, true, undefined],
    [
      "primary down, not serving: stays out",
      view(probe()),
      undefined,
      false,
      "no primary to compare with",
    ],
  ])("%s", (_, replica, source, servingNow, expected) => {
    expect(notServingReason(replica, source, 4 * MiB, servingNow)).toBe(expected);
  });
});
