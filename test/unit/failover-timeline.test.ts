import { proxyTargetsOf } from "../../bench/failover/observer";
import { Observation, becameAt, timelineOf } from "../../bench/failover/timeline";

const T0 = Date.parse("2026-12-06T12:00:00.000Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const OLD = "10.0.0.1";
const NEW = "10.0.0.2";

/** An observation `ms` after the fault; by default everything still leads to the old primary. */
const seen = (ms: number, o: Partial<Observation> = {}): Observation => ({
  at: T0 + ms,
  writable: [OLD],
  primaryLabelled: [OLD],
  rwEndpoints: [OLD],
  proxyTargets: [OLD],
  ...o,
});

describe("becameAt", () => {
  const s = (at: number, ok: boolean) => ({ at, ok });
  it.each([
    ["never wanted", [s(1, false), s(2, false)], undefined],
    ["always wanted (nothing changed)", [s(1, true), s(2, true)], undefined],
    ["wanted from the second sample", [s(1, false), s(2, true), s(3, true)], 2],
    ["flapped: the last change counts", [s(1, false), s(2, true), s(3, false), s(4, true)], 4],
    ["outside the window is ignored", [s(0, false), s(1, true), s(9, false)], 1],
  ])("%s", (_name, series, want) => {
    expect(becameAt(series, 0, 5, x => x.ok)).toBe(want);
  });
});

/** The timeline of a failover whose first write, by `server`, came `writtenMs` after the fault. */
const timelineAfter = (writtenMs: number, server: string, observations: Observation[]) =>
  timelineOf({ t0: T0, writtenAt: T0 + writtenMs, server, observations });

describe("timelineOf", () => {
  const observations: Observation[] = [
    seen(100),
    seen(900, {
      operation: { type: "Failover", step: "Fencing", startedAt: iso(850) },
      writable: [],
      primaryLabelled: [],
    }),
    seen(1900, {
      operation: {
        type: "Failover",
        step: "Promoting",
        startedAt: iso(850),
        stepStartedAt: iso(1800),
      },
      writable: [],
      primaryLabelled: [],
      rwEndpoints: [],
    }),
    seen(2200, { writable: [NEW], primaryLabelled: [], rwEndpoints: [] }),
    seen(2300, { writable: [NEW], primaryLabelled: [NEW], rwEndpoints: [] }),
    seen(2400, { writable: [NEW], primaryLabelled: [NEW], rwEndpoints: [NEW] }),
    seen(2900, {
      writable: [NEW],
      primaryLabelled: [NEW],
      rwEndpoints: [NEW],
      proxyTargets: [NEW],
    }),
  ];

  it("reads every phase of a failover, from the fault", () => {
    expect(
      timelineOf({
        t0: T0,
        writtenAt: T0 + 3100,
        server: NEW,
        observations,
      }),
    ).toEqual({
      detectedMs: 850,
      fencedMs: 1800,
      promotedMs: 2200,
      labelledMs: 2300,
      endpointsMs: 2400,
      proxyMs: 2900,
      writtenMs: 3100,
    });
  });

  it("an operation that started before the fault is not this failover's", () => {
    const earlier = observations.map(o =>
      o.operation ? { ...o, operation: { ...o.operation, startedAt: iso(-5000) } } : o,
    );
    const t = timelineAfter(3100, NEW, earlier);
    expect(t.detectedMs).toBeUndefined();
    expect(t.fencedMs).toBeUndefined();
  });

  it("a restart in place: what never moved away from the primary has no phase", () => {
    const inPlace = [
      seen(100),
      seen(500, { writable: [], rwEndpoints: [] }),
      seen(1400, { rwEndpoints: [] }),
      seen(1500),
    ];
    expect(timelineAfter(1600, OLD, inPlace)).toEqual({
      promotedMs: 1400,
      endpointsMs: 1500,
      writtenMs: 1600,
    });
  });

  it("what observers saw later than the write plus the slack is not counted", () => {
    const late = [seen(100, { proxyTargets: [] }), seen(9000, { proxyTargets: [NEW] })];
    const t = timelineAfter(3000, NEW, late);
    expect(t.proxyMs).toBeUndefined();
  });
});

describe("proxyTargetsOf", () => {
  const save = [
    '-A KUBE-SVC-AAA -m comment --comment "bench-ns/bench-rw:postgres -> 10.244.0.9:5432" -j KUBE-SEP-1',
    '-A KUBE-SVC-BBB -m comment --comment "bench-ns/bench-ro:postgres -> 10.244.0.8:5432" -j KUBE-SEP-2',
    '-A KUBE-SVC-CCC -m comment --comment "bench-ns/bench-rwx -> 10.244.0.7:5432" -j KUBE-SEP-3',
    '-A KUBE-SEP-1 -p tcp -m comment --comment "bench-ns/bench-rw:postgres" -j DNAT --to-destination 10.244.0.6:5432',
    '-A KUBE-SVC-DDD -m comment --comment "other/bench-rw -> 10.244.0.5:5432" -j KUBE-SEP-4',
  ].join("\n");
  it("reads the service chain's targets of that service alone", () => {
    expect(proxyTargetsOf(save, "bench-ns", "bench-rw")).toEqual(["10.244.0.9"]);
    expect(proxyTargetsOf(save, "other", "bench-rw")).toEqual(["10.244.0.5"]);
    expect(proxyTargetsOf(save, "bench-ns", "missing")).toEqual([]);
  });
});
