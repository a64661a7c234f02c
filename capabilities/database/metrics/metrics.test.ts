import { Registry } from "prom-client";
import { OperatorMetrics } from "./metrics";

const setup = () => {
  const registry = new Registry();
  return { registry, m: new OperatorMetrics(registry) };
};

/** The value of one sample in the text exposition, e.g. `name{a="b"}`. */
async function sample(registry: Registry, series: string): Promise<number | undefined> {
  const text = await registry.metrics();
  const line = text.split("\n").find(l => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("OperatorMetrics", () => {
  it("times reconciles by result", async () => {
    const { registry, m } = setup();
    m.observeReconcile("success", 0.003);
    m.observeReconcile("success", 0.2);
    m.observeReconcile("error", 1);
    expect(
      await sample(registry, 'pgkeeper_reconcile_duration_seconds_count{result="success"}'),
    ).toBe(2);
    expect(
      await sample(
        registry,
        'pgkeeper_reconcile_duration_seconds_bucket{le="0.005",result="success"}',
      ),
    ).toBe(1);
    expect(
      await sample(registry, 'pgkeeper_reconcile_duration_seconds_count{result="error"}'),
    ).toBe(1);
  });

  it("counts errors by reason and retries", async () => {
    const { registry, m } = setup();
    m.reconcileFailed("OwnershipConflict", true);
    m.reconcileFailed("OwnershipConflict", true);
    m.reconcileFailed("InvalidSpec", false);
    expect(
      await sample(registry, 'pgkeeper_reconcile_errors_total{reason="OwnershipConflict"}'),
    ).toBe(2);
    expect(await sample(registry, "pgkeeper_reconcile_retries_total")).toBe(2);
  });

  it("reads the queue gauges at scrape time", async () => {
    const { registry, m } = setup();
    let depth = 3;
    m.watchQueue(() => ({ depth, inFlight: 2, delayed: 1 }));
    expect(await sample(registry, "pgkeeper_workqueue_depth")).toBe(3);
    depth = 0;
    expect(await sample(registry, "pgkeeper_workqueue_depth")).toBe(0);
    expect(await sample(registry, "pgkeeper_workqueue_in_flight")).toBe(2);
    expect(await sample(registry, "pgkeeper_workqueue_delayed")).toBe(1);
  });

  it("cache gauges and read counters come from their source at scrape time", async () => {
    const { registry, m } = setup();
    m.watchCache(() => ({
      objects: { "v1/Pod": 3, "apps/v1/StatefulSet": 1 },
      synced: ["v1/Pod"],
      reads: { cache: 40, api_get: 2, api_list: 0 },
    }));
    expect(await sample(registry, 'pgkeeper_cache_objects{kind="v1/Pod"}')).toBe(3);
    expect(await sample(registry, 'pgkeeper_informer_synced{kind="v1/Pod"}')).toBe(1);
    expect(
      await sample(registry, 'pgkeeper_informer_synced{kind="apps/v1/StatefulSet"}'),
    ).toBeUndefined();
    expect(await sample(registry, 'pgkeeper_cluster_reads_total{source="cache"}')).toBe(40);
    expect(await sample(registry, 'pgkeeper_cluster_reads_total{source="api_get"}')).toBe(2);
  });

  it("leader gauge and failovers", async () => {
    const { registry, m } = setup();
    expect(await sample(registry, "pgkeeper_leader")).toBe(0);
    m.setLeader(true);
    expect(await sample(registry, "pgkeeper_leader")).toBe(1);
    m.recordFailover("team", "ledger", 12.5);
    expect(
      await sample(registry, 'pgkeeper_failovers_total{namespace="team",database="ledger"}'),
    ).toBe(1);
    expect(await sample(registry, "pgkeeper_failover_duration_seconds_sum")).toBe(12.5);
  });

  it("counts the probe silences not held against an instance, by reason", async () => {
    const { registry, m } = setup();
    m.recordDiscountedSilence("team", "ledger", "slowNode");
    m.recordDiscountedSilence("team", "ledger", "slowNode");
    expect(
      await sample(
        registry,
        'pgkeeper_probe_silences_discounted_total{namespace="team",database="ledger",reason="slowNode"}',
      ),
    ).toBe(2);
  });

  it("per-instance health replaces the Database's series and forgets them when it goes", async () => {
    const { registry, m } = setup();
    const l = (i: string) => `namespace="team",database="ledger",instance="${i}"`;
    m.setInstanceHealth("team", "ledger", [
      { name: "ledger-0", role: "primary", ready: true },
      { name: "ledger-1", role: "replica", ready: false, lagBytes: 4096 },
    ]);
    m.setInstanceHealth("team", "other", [{ name: "other-0", role: "primary", ready: true }]);
    expect(await sample(registry, `pgkeeper_instance_role{${l("ledger-0")},role="primary"}`)).toBe(
      1,
    );
    expect(await sample(registry, `pgkeeper_instance_ready{${l("ledger-1")}}`)).toBe(0);
    expect(
      await sample(registry, `pgkeeper_instance_replication_lag_bytes{${l("ledger-1")}}`),
    ).toBe(4096);

    // Failover: roles swap; the old role series must not linger.
    m.setInstanceHealth("team", "ledger", [
      { name: "ledger-0", role: "replica", ready: true },
      { name: "ledger-1", role: "primary", ready: true },
    ]);
    expect(
      await sample(registry, `pgkeeper_instance_role{${l("ledger-0")},role="primary"}`),
    ).toBeUndefined();
    expect(await sample(registry, `pgkeeper_instance_role{${l("ledger-1")},role="primary"}`)).toBe(
      1,
    );
    expect(
      await sample(registry, `pgkeeper_instance_replication_lag_bytes{${l("ledger-1")}}`),
    ).toBeUndefined();

    m.forgetDatabase("team", "ledger");
    const text = await registry.metrics();
    expect(text).not.toContain('database="ledger"');
    expect(text).toContain('database="other"');
  });
});

describe("archiving gauges", () => {
  it("exports the primary's pending WAL and failing state, and removes them with the store", async () => {
    const registry = new Registry();
    const m = new OperatorMetrics(registry);
    m.setArchiving("prod", "orders", { pendingBytes: 3 * 16 * 1024 * 1024, failing: true });
    let text = await registry.metrics();
    expect(text).toContain(
      'pgkeeper_wal_archive_pending_bytes{namespace="prod",database="orders"} 50331648',
    );
    expect(text).toContain('pgkeeper_wal_archive_failing{namespace="prod",database="orders"} 1');
    m.setArchiving("prod", "orders", undefined);
    text = await registry.metrics();
    expect(text).not.toContain('database="orders"} ');
  });
});

describe("the last backup's time", () => {
  it.each<[string, string | undefined, string | undefined]>([
    ["a completed backup: its end, in Unix seconds", "2026-12-07T10:00:00.500Z", "1796637600"],
    ["none: no series", undefined, undefined],
    ["a time that does not parse: no series", "yesterday", undefined],
  ])("%s", async (_, time, value) => {
    const registry = new Registry();
    const m = new OperatorMetrics(registry);
    m.setLastBackup("prod", "orders", "2026-12-01T00:00:00Z");
    m.setLastBackup("prod", "orders", time);
    const line = (await registry.metrics())
      .split("\n")
      .find(l => l.startsWith("pgkeeper_backup_last_completed_timestamp_seconds{"));
    expect(line?.split(" ")[1]).toBe(value);
  });

  it("goes with the Database", async () => {
    const registry = new Registry();
    const m = new OperatorMetrics(registry);
    m.setLastBackup("prod", "orders", "2026-12-07T10:00:00Z");
    m.forgetDatabase("prod", "orders");
    expect(await registry.metrics()).not.toContain('database="orders"');
  });
});
