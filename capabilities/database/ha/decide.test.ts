import { Decision, HaInput, InstanceView, decide, failoverCandidate, stillMoving } from "./decide";
import { InstanceProbe } from "../instance/types";

const probe = (over: Partial<InstanceProbe> = {}): InstanceProbe => ({
  inRecovery: true,
  timeline: 1,
  lsn: "0/3000000",
  walReceiverStatus: "streaming",
  postmasterStartTime: "2026-11-29T00:00:00Z",
  pendingRestart: [],
  standbys: [],
  ...over,
});

const up = (name: string, over: Partial<InstanceProbe> = {}, pod = {}): InstanceView => ({
  name,
  ordinal: Number(name.split("-")[1]),
  pod: { uid: `uid-${name}`, ready: true, terminating: false, revision: "r1", ...pod },
  sql: { ok: true, failures: 0, probe: probe(over) },
});
const primary = (over: Partial<InstanceProbe> = {}, pod = {}): InstanceView =>
  up("db-0", { inRecovery: false, walReceiverStatus: undefined, ...over }, pod);
/** Its pod as given, no probe answer yet (the monitor of a leader that just started). */
const unprobed = ({ sql: _sql, ...view }: InstanceView): InstanceView => view;
const failing = (view: InstanceView, failures: number): InstanceView => ({
  ...view,
  sql: { ...view.sql!, ok: false, failures },
});

const base = (over: Partial<HaInput> = {}): HaInput => ({
  spec: {
    instances: 3,
    failover: { enabled: true, delaySeconds: 0 },
    postgresql: { parameters: {}, synchronous: { mode: "off" } },
  },
  primary: "db-0",
  instances: [primary(), up("db-1"), up("db-2")],
  updateRevision: "r1",
  synchronousStandbys: [],
  wasUp: true,
  now: 100_000,
  failureThreshold: 3,
  ...over,
});
const quorum = (number = 1) => ({
  instances: 3,
  failover: { enabled: true, delaySeconds: 0 },
  postgresql: { parameters: {}, synchronous: { mode: "quorum" as const, number } },
});

describe("decide: failover", () => {
  it.each<[string, Partial<HaInput>, Decision]>([
    ["all healthy", {}, { kind: "steady" }],
    [
      "primary pod gone: most advanced replica",
      { instances: [up("db-1", { lsn: "0/3000000" }), up("db-2", { lsn: "0/3000100" })] },
      { kind: "failover", to: "db-2", reason: "the primary's pod db-0 does not exist" },
    ],
    [
      "primary terminating, equal LSNs: lowest ordinal",
      { instances: [primary({}, { terminating: true }), up("db-1"), up("db-2")] },
      { kind: "failover", to: "db-1", reason: "the primary's pod db-0 is being deleted" },
    ],
    [
      "primary failing probes at the threshold: the reason says what the last one got",
      {
        instances: [
          {
            ...failing(primary(), 3),
            sql: {
              ok: false,
              failures: 3,
              lastError: "probe on 10.0.0.1:5432: connect ECONNREFUSED",
            },
          },
          up("db-1"),
        ],
      },
      {
        kind: "failover",
        to: "db-1",
        reason:
          "db-0 stopped answering SQL probes (3 failed in a row; the last: probe on 10.0.0.1:5432: connect ECONNREFUSED)",
      },
    ],
    [
      "primary failing probes at the threshold",
      { instances: [failing(primary(), 3), up("db-1"), up("db-2", { lsn: "1/0" })] },
      {
        kind: "failover",
        to: "db-2",
        reason: "db-0 stopped answering SQL probes (3 failed in a row)",
      },
    ],
    [
      "a replica on a newer timeline wins over a higher LSN on an older one",
      {
        instances: [
          failing(primary(), 3),
          up("db-1", { timeline: 2, lsn: "9/0" }),
          up("db-2", { timeline: 3, lsn: "0/1" }),
        ],
      },
      {
        kind: "failover",
        to: "db-2",
        reason: "db-0 stopped answering SQL probes (3 failed in a row)",
      },
    ],
    [
      "a timeline read from a restartpoint (receiver down) is a lower bound: the most WAL wins",
      {
        instances: [
          failing(primary(), 3),
          up("db-1", { timeline: 3, lsn: "0/45C2E48" }),
          up("db-2", { timeline: 2, timelineAtLeast: true, lsn: "0/45C2FA8" }),
        ],
      },
      {
        kind: "failover",
        to: "db-2",
        reason: "db-0 stopped answering SQL probes (3 failed in a row)",
      },
    ],
    [
      "a lower bound that is already the higher timeline still counts",
      {
        instances: [
          failing(primary(), 3),
          up("db-1", { timeline: 2, lsn: "9/0" }),
          up("db-2", { timeline: 3, timelineAtLeast: true, lsn: "0/1" }),
        ],
      },
      {
        kind: "failover",
        to: "db-2",
        reason: "db-0 stopped answering SQL probes (3 failed in a row)",
      },
    ],
    [
      "primary failing probes below the threshold: not yet",
      { instances: [failing(primary(), 2), up("db-1"), up("db-2")] },
      { kind: "steady" },
    ],
    [
      "postgres container in CrashLoopBackOff: at once, whatever the probes say",
      { instances: [primary({}, { crashLooping: true }), up("db-1"), up("db-2")] },
      {
        kind: "failover",
        to: "db-1",
        reason: "the primary's postgres container db-0 is in CrashLoopBackOff",
      },
    ],
    [
      "restarted in place 4.9 s ago, probes failing past the threshold: crash recovery, wait",
      {
        instances: [failing(primary({}, { restartedAt: 95_100 }), 4), up("db-1"), up("db-2")],
      },
      { kind: "steady" },
    ],
    [
      "restarted in place 5 s ago and still not answering: failed over",
      {
        instances: [failing(primary({}, { restartedAt: 95_000 }), 5), up("db-1"), up("db-2")],
      },
      {
        kind: "failover",
        to: "db-1",
        reason: "db-0 stopped answering SQL probes (3 failed in a row)",
      },
    ],
    [
      "restarted in place recently, but its pod is being deleted: failed over",
      {
        instances: [
          failing(primary({}, { restartedAt: 99_000, terminating: true }), 1),
          up("db-1"),
          up("db-2"),
        ],
      },
      { kind: "failover", to: "db-1", reason: "the primary's pod db-0 is being deleted" },
    ],
    [
      "never up (still creating): no failover",
      { wasUp: false, instances: [up("db-1"), up("db-2")] },
      { kind: "steady" },
    ],
    [
      "failover disabled",
      {
        spec: { ...base().spec, failover: { enabled: false, delaySeconds: 0 } },
        instances: [up("db-1")],
      },
      { kind: "steady" },
    ],
    [
      "delay not over",
      {
        spec: { ...base().spec, failover: { enabled: true, delaySeconds: 30 } },
        primaryDownSince: 90_000,
        instances: [up("db-1")],
      },
      { kind: "waitForFailoverDelay", remainingMs: 20_000 },
    ],
    [
      "delay over",
      {
        spec: { ...base().spec, failover: { enabled: true, delaySeconds: 10 } },
        primaryDownSince: 90_000,
        instances: [up("db-1")],
      },
      { kind: "failover", to: "db-1", reason: "the primary's pod db-0 does not exist" },
    ],
    [
      "no healthy replica",
      { instances: [failing(up("db-1"), 1), up("db-2", {}, { terminating: true })] },
      {
        kind: "cannotFailover",
        reason: "the primary's pod db-0 does not exist, but no healthy replica to promote",
      },
    ],
    [
      "a replica above the instance count (being scaled away) is not eligible",
      {
        spec: { ...base().spec, instances: 2 },
        instances: [up("db-1"), up("db-2", { lsn: "9/0" })],
      },
      { kind: "failover", to: "db-1", reason: "the primary's pod db-0 does not exist" },
    ],
  ])("%s", (_, over, expected) => {
    expect(decide(base(over))).toEqual(expected);
  });
});

describe("failoverCandidate in quorum mode", () => {
  it.each<[string, Partial<HaInput>, ReturnType<typeof failoverCandidate>]>([
    [
      "only synchronous standbys are eligible, even if an async one is ahead",
      {
        spec: quorum(1),
        synchronousStandbys: ["db-1"],
        instances: [up("db-1"), up("db-2", { lsn: "5/0" })],
      },
      { to: "db-1" },
    ],
    [
      "ANY 1 of 2: both must answer, the most advanced wins",
      {
        spec: quorum(1),
        synchronousStandbys: ["db-1", "db-2"],
        instances: [up("db-1", { lsn: "0/5" }), up("db-2", { lsn: "0/9" })],
      },
      { to: "db-2" },
    ],
    [
      "ANY 1 of 2 with one unreachable: refused (the other may lack a commit)",
      {
        spec: quorum(1),
        synchronousStandbys: ["db-1", "db-2"],
        instances: [up("db-1"), failing(up("db-2"), 3)],
      },
      {
        refused:
          "only 1 of the synchronous standbys (db-1, db-2) answer; 2 are needed to be sure no acknowledged write is lost",
      },
    ],
    [
      "ANY 2 of 2 with one unreachable: the other has every commit",
      {
        spec: quorum(2),
        synchronousStandbys: ["db-1", "db-2"],
        instances: [up("db-1"), failing(up("db-2"), 3)],
      },
      { to: "db-1" },
    ],
    [
      "the old primary and scaled-away replicas in the last set do not count",
      {
        spec: { ...quorum(1), instances: 3 },
        primary: "db-1",
        synchronousStandbys: ["db-0", "db-1", "db-2", "db-3"],
        instances: [up("db-0", { lsn: "0/1" }), up("db-2", { lsn: "0/2" })],
      },
      { to: "db-2" },
    ],
    [
      "no synchronous standby ever seen",
      { spec: quorum(1), synchronousStandbys: [], instances: [up("db-1")] },
      { refused: "no synchronous standby was ever reported by the primary" },
    ],
  ])("%s", (_, over, expected) => {
    expect(failoverCandidate(base(over))).toEqual(expected);
  });
});

const limits = (maxConnections: number) => ({
  max_connections: maxConnections,
  max_worker_processes: 8,
  max_wal_senders: 16,
  max_prepared_transactions: 0,
  max_locks_per_transaction: 64,
});
const lowered = (maxConnections: string) => ({
  parameters: { MAX_CONNECTIONS: maxConnections },
  synchronous: { mode: "off" as const },
});

describe("decide: switchover, scaling and rolling restarts", () => {
  it.each<[string, Partial<HaInput>, Decision]>([
    [
      "requested to a named replica",
      { switchoverRequest: "db-2" },
      { kind: "switchover", to: "db-2", reason: "Requested", requested: true },
    ],
    [
      "requested auto: best streaming replica",
      { switchoverRequest: "auto", instances: [primary(), up("db-1"), up("db-2", { lsn: "1/0" })] },
      { kind: "switchover", to: "db-2", reason: "Requested", requested: true },
    ],
    [
      "requested to the primary itself",
      { switchoverRequest: "db-0" },
      { kind: "refuseSwitchover", reason: "db-0 is already the primary" },
    ],
    [
      "requested to a replica that is not streaming",
      {
        switchoverRequest: "db-1",
        instances: [primary(), up("db-1", { walReceiverStatus: "waiting" }), up("db-2")],
      },
      { kind: "refuseSwitchover", reason: "db-1 is not a ready, streaming replica" },
    ],
    [
      "requested to a non-synchronous replica in quorum mode",
      { spec: quorum(1), synchronousStandbys: ["db-2"], switchoverRequest: "db-1" },
      { kind: "refuseSwitchover", reason: "db-1 is not a ready, streaming, synchronous replica" },
    ],
    [
      // A leader that just started has not probed yet: unknown is not refused (the request stays).
      "requested before the target's first probe (a new leader): wait for it",
      { switchoverRequest: "db-1", instances: [primary(), unprobed(up("db-1")), up("db-2")] },
      { kind: "waitForProbes", reason: "db-1 has not been probed yet" },
    ],
    [
      "requested before the primary's first probe: wait for it",
      { switchoverRequest: "db-1", instances: [unprobed(primary()), up("db-1"), up("db-2")] },
      { kind: "waitForProbes", reason: "db-0 has not been probed yet" },
    ],
    [
      "requested auto before any replica's first probe: wait for them",
      {
        switchoverRequest: "auto",
        instances: [primary(), unprobed(up("db-1")), unprobed(up("db-2"))],
      },
      { kind: "waitForProbes", reason: "db-1, db-2 have not been probed yet" },
    ],
    [
      "requested to a replica whose pod is not ready: refused, probed or not",
      {
        switchoverRequest: "db-1",
        instances: [primary(), unprobed(up("db-1", {}, { ready: false })), up("db-2")],
      },
      { kind: "refuseSwitchover", reason: "db-1 is not a ready, streaming replica" },
    ],
    [
      "scale down below the primary's ordinal: switch over first",
      {
        spec: { ...base().spec, instances: 2 },
        primary: "db-2",
        instances: [up("db-0"), up("db-1"), { ...primary(), name: "db-2", ordinal: 2 }],
      },
      { kind: "switchover", to: "db-0", reason: "ScaleDown", requested: false },
    ],
    [
      "a replica with a restart-only change pending restarts first",
      {
        instances: [
          primary({ pendingRestart: ["shared_buffers"] }),
          up("db-1", { pendingRestart: ["shared_buffers"] }),
          up("db-2", { pendingRestart: ["shared_buffers"] }),
        ],
      },
      {
        kind: "restart",
        instance: "db-1",
        reason: "parameters pending restart: shared_buffers",
      },
    ],
    [
      "the probes show only the primary pending, the reload said a replica is too: replica first",
      {
        instances: [
          primary({ pendingRestart: ["max_connections"] }),
          up("db-1"),
          { ...up("db-2"), pendingAfterReload: ["max_connections"] },
        ],
      },
      {
        kind: "restart",
        instance: "db-2",
        reason: "parameters pending restart: max_connections",
      },
    ],
    [
      "only the primary is left outdated: switchover",
      {
        spec: { ...base().spec, instances: 2 },
        updateRevision: "r2",
        instances: [primary(), up("db-1", {}, { revision: "r2" })],
      },
      { kind: "switchover", to: "db-1", reason: "RollingRestart", requested: false },
    ],
    [
      "a replica that cannot pull its image, its template since corrected: replaced at once, healthy or not",
      {
        updateRevision: "r2",
        instances: [
          primary({}, { revision: "r2" }),
          up("db-1", {}, { revision: "r2" }),
          { ...up("db-2", {}, { ready: false, imagePullFailing: true }), sql: undefined },
        ],
      },
      {
        kind: "restart",
        instance: "db-2",
        reason: "runs an older pod template, and its image could not be pulled",
      },
    ],
    [
      "the one instance cannot pull its image, its template since corrected: replaced",
      {
        spec: { ...base().spec, instances: 1 },
        updateRevision: "r2",
        instances: [{ ...primary({}, { ready: false, imagePullFailing: true }), sql: undefined }],
      },
      {
        kind: "restart",
        instance: "db-0",
        reason: "runs an older pod template, and its image could not be pulled",
      },
    ],
    [
      "a replica whose entrypoint refused an image of another major, the image since corrected: replaced at once",
      {
        updateRevision: "r2",
        instances: [
          primary({}, { revision: "r2" }),
          up("db-1", {}, { revision: "r2" }),
          {
            ...up(
              "db-2",
              {},
              {
                ready: false,
                crashLooping: true,
                startRefused: "the image runs PostgreSQL 17, the Database's version is 15",
              },
            ),
            sql: undefined,
          },
        ],
      },
      {
        kind: "restart",
        instance: "db-2",
        reason:
          "runs an older pod template, and its postgres keeps ending (the image runs PostgreSQL 17, the Database's version is 15)",
      },
    ],
    [
      "a replica refusing the image its current template names: left alone, the rollout stops there",
      {
        updateRevision: "r2",
        instances: [
          primary(),
          up("db-1"),
          {
            ...up("db-2", {}, { revision: "r2", ready: false, crashLooping: true }),
            sql: undefined,
          },
        ],
      },
      { kind: "steady" },
    ],
    [
      "a pod that cannot pull the image its current template names: left alone (nothing to fix by restarting)",
      {
        updateRevision: "r1",
        instances: [
          primary(),
          up("db-1"),
          { ...up("db-2", {}, { ready: false, imagePullFailing: true }), sql: undefined },
        ],
      },
      { kind: "steady" },
    ],
    [
      "an outdated replica while another is down: wait (never two down at once)",
      {
        updateRevision: "r2",
        instances: [primary(), up("db-1"), up("db-2", {}, { ready: false })],
      },
      { kind: "steady" },
    ],
    [
      "an outdated replica while another's pod is missing (deleted, not yet recreated): wait",
      { updateRevision: "r2", instances: [primary({}, { revision: "r2" }), up("db-1")] },
      { kind: "steady" },
    ],
    [
      "switchover only to a replica on the primary's timeline",
      {
        switchoverRequest: "auto",
        instances: [
          primary({ timeline: 5 }),
          up("db-1", { timeline: 4, lsn: "9/0" }),
          up("db-2", { timeline: 5 }),
        ],
      },
      { kind: "switchover", to: "db-2", reason: "Requested", requested: true },
    ],
    [
      "lowering a limit standbys must match: the primary restarts first, in place",
      {
        spec: { ...base().spec, postgresql: lowered("120") },
        instances: [
          primary({ pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
          up("db-1", { pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
          up("db-2", { pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
        ],
      },
      {
        kind: "restartPrimary",
        reason:
          "lowering max_connections: the primary restarts first (parameters pending restart: max_connections)",
      },
    ],
    [
      "raising it: replicas first, as usual",
      {
        spec: { ...base().spec, postgresql: lowered("300") },
        instances: [
          primary({ pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
          up("db-1", { pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
          up("db-2", { pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
        ],
      },
      { kind: "restart", instance: "db-1", reason: "parameters pending restart: max_connections" },
    ],
    [
      "the primary runs the lower value: the replicas follow",
      {
        spec: { ...base().spec, postgresql: lowered("120") },
        instances: [
          primary({ hotStandbyLimits: limits(120) }),
          up("db-1", { pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
          up("db-2", { pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
        ],
      },
      { kind: "restart", instance: "db-1", reason: "parameters pending restart: max_connections" },
    ],
    [
      "lowering while a replica is down: wait",
      {
        spec: { ...base().spec, postgresql: lowered("120") },
        instances: [
          primary({ pendingRestart: ["max_connections"], hotStandbyLimits: limits(200) }),
          up("db-1", { pendingRestart: ["max_connections"] }, { ready: false }),
          up("db-2", { pendingRestart: ["max_connections"] }),
        ],
      },
      { kind: "steady" },
    ],
    [
      "a single instance with a pending restart restarts in place",
      {
        spec: { ...base().spec, instances: 1 },
        instances: [primary({ pendingRestart: ["max_connections"] })],
      },
      { kind: "restart", instance: "db-0", reason: "parameters pending restart: max_connections" },
    ],
  ])("%s", (_, over, expected) => {
    expect(decide(base(over))).toEqual(expected);
  });
});

describe("stillMoving: positions after the fence, two rounds", () => {
  it.each<[string, InstanceView[], InstanceView[], string[]]>([
    ["nothing moves", [up("db-1"), up("db-2")], [up("db-1"), up("db-2")], []],
    [
      "a standby still replaying its WAL",
      [up("db-1", { lsn: "0/1000" }), up("db-2")],
      [up("db-1", { lsn: "0/2000" }), up("db-2")],
      ["db-1"],
    ],
    [
      "a standby that answers only now",
      [failing(up("db-1"), 1), up("db-2")],
      [up("db-1"), up("db-2")],
      ["db-1"],
    ],
    ["a new timeline", [up("db-1", { timeline: 1 })], [up("db-1", { timeline: 2 })], ["db-1"]],
    [
      "one that stops answering is not eligible, not moving",
      [up("db-1")],
      [failing(up("db-1"), 1)],
      [],
    ],
    ["the fenced primary does not count", [primary()], [primary({ lsn: "9/0" })], []],
  ])("%s", (_, first, second, expected) => {
    expect(stillMoving(first, second)).toEqual(expected);
  });
});
