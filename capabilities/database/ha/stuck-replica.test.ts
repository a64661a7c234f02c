import type { InstanceView } from "./decide";
import { InstanceProbe } from "../instance/types";
import {
  REPAIR_AGAIN_AFTER_MS,
  REPAIR_SPACING_MS,
  STUCK_CONFIRM_MS,
  StuckMemory,
  replicasToRepair,
} from "./stuck-replica";

const probe = (over: Partial<InstanceProbe>): InstanceProbe => ({
  inRecovery: true,
  timeline: 1,
  lsn: "0/3000000",
  replayLsn: "0/3000000",
  postmasterStartTime: "t0",
  pendingRestart: [],
  standbys: [],
  ...over,
});
const view = (name: string, p: Partial<InstanceProbe> | undefined, pod = {}): InstanceView => ({
  name,
  ordinal: Number(name.slice(-1)),
  pod: { uid: `uid-${name}`, ready: true, terminating: false, ...pod },
  sql: p ? { ok: true, failures: 0, probe: probe(p) } : { ok: false, failures: 3 },
});
const PRIMARY = view("db-0", { inRecovery: false });
const STUCK = { walReceiverStatus: undefined };

/** [case, views, earlier sighting of db-1 (ms before now, replay LSN), last repair ago, repaired?] */
const CASES: [string, InstanceView[], [number, string] | undefined, number | undefined, boolean][] =
  [
    [
      "stuck long enough",
      [PRIMARY, view("db-1", STUCK)],
      [STUCK_CONFIRM_MS, "0/3000000"],
      undefined,
      true,
    ],
    [
      "stuck, not yet long enough",
      [PRIMARY, view("db-1", STUCK)],
      [STUCK_CONFIRM_MS - 1, "0/3000000"],
      undefined,
      false,
    ],
    ["first sighting", [PRIMARY, view("db-1", STUCK)], undefined, undefined, false],
    [
      "replay moved since",
      [PRIMARY, view("db-1", STUCK)],
      [STUCK_CONFIRM_MS, "0/2000000"],
      undefined,
      false,
    ],
    [
      "streaming",
      [PRIMARY, view("db-1", { walReceiverStatus: "streaming" })],
      [STUCK_CONFIRM_MS, "0/3000000"],
      undefined,
      false,
    ],
    [
      "not answering SQL",
      [PRIMARY, view("db-1", undefined)],
      [STUCK_CONFIRM_MS, "0/3000000"],
      undefined,
      false,
    ],
    [
      "pod terminating",
      [PRIMARY, view("db-1", STUCK, { terminating: true })],
      [STUCK_CONFIRM_MS, "0/3000000"],
      undefined,
      false,
    ],
    [
      "out of recovery (a second primary: fenced, not repaired)",
      [PRIMARY, view("db-1", { inRecovery: false })],
      [STUCK_CONFIRM_MS, "0/3000000"],
      undefined,
      false,
    ],
    [
      "primary not answering",
      [view("db-0", undefined), view("db-1", STUCK)],
      [STUCK_CONFIRM_MS, "0/3000000"],
      undefined,
      false,
    ],
    [
      "primary in recovery",
      [view("db-0", {}), view("db-1", STUCK)],
      [STUCK_CONFIRM_MS, "0/3000000"],
      undefined,
      false,
    ],
    [
      "repaired recently",
      [PRIMARY, view("db-1", STUCK)],
      [STUCK_CONFIRM_MS, "0/3000000"],
      REPAIR_AGAIN_AFTER_MS - 1,
      false,
    ],
    [
      "the primary's pod not Ready (-rw does not route to it yet)",
      [view("db-0", { inRecovery: false }, { ready: false }), view("db-1", STUCK)],
      [STUCK_CONFIRM_MS, "0/3000000"],
      undefined,
      false,
    ],
    [
      "repaired long ago",
      [PRIMARY, view("db-1", STUCK)],
      [STUCK_CONFIRM_MS, "0/3000000"],
      REPAIR_AGAIN_AFTER_MS,
      true,
    ],
  ];

describe("replicasToRepair", () => {
  const NOW = 1_000_000;
  it.each(CASES)("%s", (_, views, sighting, repairedAgo, repaired) => {
    const memory: StuckMemory = { notFollowingSince: new Map(), repairedAt: new Map() };
    if (sighting)
      memory.notFollowingSince.set("uid-db-1", {
        since: NOW - sighting[0],
        replayLsn: sighting[1],
      });
    if (repairedAgo !== undefined) memory.repairedAt.set("db-1", NOW - repairedAgo);
    const { repair } = replicasToRepair(views, "db-0", memory, NOW);
    expect(repair.map(v => v.name)).toEqual(repaired ? ["db-1"] : []);
  });

  it("repairs one replica at a time, the next one REPAIR_SPACING_MS later", () => {
    const memory: StuckMemory = { notFollowingSince: new Map(), repairedAt: new Map() };
    const views = [PRIMARY, view("db-1", STUCK), view("db-2", STUCK)];
    replicasToRepair(views, "db-0", memory, 0);
    const first = replicasToRepair(views, "db-0", memory, STUCK_CONFIRM_MS);
    expect(first.repair.map(v => v.name)).toEqual(["db-1"]);
    memory.repairedAt.set("db-1", STUCK_CONFIRM_MS); // what repair-replica.ts records
    memory.notFollowingSince.delete("uid-db-1");
    const soon = replicasToRepair(
      [PRIMARY, view("db-2", STUCK)],
      "db-0",
      memory,
      STUCK_CONFIRM_MS + 1,
    );
    expect(soon.repair).toEqual([]);
    expect(soon.lookAgainMs).toBe(REPAIR_SPACING_MS - 1);
    const later = replicasToRepair(
      [PRIMARY, view("db-2", STUCK)],
      "db-0",
      memory,
      STUCK_CONFIRM_MS + REPAIR_SPACING_MS,
    );
    expect(later.repair.map(v => v.name)).toEqual(["db-2"]);
  });

  it("forgets a replica once it follows again, so a later stall starts a new count", () => {
    const memory: StuckMemory = { notFollowingSince: new Map(), repairedAt: new Map() };
    replicasToRepair([PRIMARY, view("db-1", STUCK)], "db-0", memory, 0);
    replicasToRepair(
      [PRIMARY, view("db-1", { walReceiverStatus: "streaming" })],
      "db-0",
      memory,
      1,
    );
    expect(memory.notFollowingSince.size).toBe(0);
    const again = replicasToRepair(
      [PRIMARY, view("db-1", STUCK)],
      "db-0",
      memory,
      STUCK_CONFIRM_MS,
    );
    expect(again.repair).toEqual([]);
    expect(again.lookAgainMs).toBe(STUCK_CONFIRM_MS);
  });
});
