/**
 * Our Prometheus metrics, on prom-client's default registry (Pepr keeps its own metrics in a
 * private registry served on its port; ours are served by server.ts on PGKEEPER_METRICS_PORT).
 * Everything is prefixed `pgkeeper_`. Per-instance series are labelled namespace/database/
 * instance and removed when the Database goes, so a deleted Database leaves no stale series.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, register } from "prom-client";
import { databaseKey } from "../api/names";

export type ReconcileResultLabel = "success" | "error" | "requeue";

export interface InstanceHealth {
  name: string;
  role: string;
  ready: boolean;
  /** Bytes of WAL the replica has not replayed yet; unset when unknown (or on the primary). */
  lagBytes?: number;
}

/** Reconciles take milliseconds when converged and seconds when writing many children. */
const RECONCILE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Failovers take seconds (detection delay + promotion) to a couple of minutes. */
const FAILOVER_BUCKETS = [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 300];

/** What the read cache reports at scrape time. */
export interface CacheStats {
  /** Objects held, by kind ("apps/v1/StatefulSet"). */
  objects: Record<string, number>;
  /** Kinds whose informer has listed everything. */
  synced: string[];
  /** Reads since start, by source: cache, api_get, api_list. */
  reads: Record<string, number>;
}

type DbLabels = { namespace: string; database: string };
type InstanceLabels = DbLabels & { instance: string };
type RoleLabels = InstanceLabels & { role: string };

export class OperatorMetrics {
  readonly registry: Registry;
  private readonly reconcileDuration: Histogram<"result">;
  private readonly reconcileErrors: Counter<"reason">;
  private readonly retries: Counter;
  private readonly leader: Gauge;
  private readonly failovers: Counter<"namespace" | "database">;
  private readonly failoverDuration: Histogram;
  private readonly instanceRole: Gauge<"namespace" | "database" | "instance" | "role">;
  private readonly instanceReady: Gauge<"namespace" | "database" | "instance">;
  private readonly instanceLag: Gauge<"namespace" | "database" | "instance">;
  private readonly archivePending: Gauge<"namespace" | "database">;
  private readonly archiveFailing: Gauge<"namespace" | "database">;
  /** Label sets currently exported per Database, to remove exactly those later. */
  private readonly series = new Map<string, { roles: RoleLabels[]; instances: InstanceLabels[] }>();
  private cacheSource: () => CacheStats = () => ({ objects: {}, synced: [], reads: {} });
  private queueSource: () => { depth: number; inFlight: number; delayed: number } = () => ({
    depth: 0,
    inFlight: 0,
    delayed: 0,
  });

  constructor(registry: Registry = register) {
    this.registry = registry;
    const registers = [registry];
    this.reconcileDuration = new Histogram({
      name: "pgkeeper_reconcile_duration_seconds",
      help: "Duration of Database reconciles, by result (success, error, requeue).",
      labelNames: ["result"],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.reconcileErrors = new Counter({
      name: "pgkeeper_reconcile_errors_total",
      help: "Failed reconciles, by reason (e.g. OwnershipConflict, ReconcileFailed).",
      labelNames: ["reason"],
      registers,
    });
    this.retries = new Counter({
      name: "pgkeeper_reconcile_retries_total",
      help: "Retries scheduled with backoff after a failed reconcile.",
      registers,
    });
    this.leader = new Gauge({
      name: "pgkeeper_leader",
      help: "1 while this process holds the leader Lease (only the leader reconciles), else 0.",
      registers,
    });
    const readQueue = () => this.queueSource();
    const queueGauge = (name: string, help: string, pick: "depth" | "inFlight" | "delayed") =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(readQueue()[pick]);
        },
      });
    queueGauge("pgkeeper_workqueue_depth", "Keys waiting for a worker.", "depth");
    queueGauge("pgkeeper_workqueue_in_flight", "Reconciles running now.", "inFlight");
    queueGauge(
      "pgkeeper_workqueue_delayed",
      "Keys waiting for a timer (backoff retries, requeue-after).",
      "delayed",
    );
    const readCache = () => this.cacheSource();
    new Gauge({
      name: "pgkeeper_cache_objects",
      help: "Objects in the watch-fed read cache, by kind.",
      labelNames: ["kind"],
      registers,
      collect() {
        this.reset();
        for (const [kind, n] of Object.entries(readCache().objects)) this.set({ kind }, n);
      },
    });
    new Gauge({
      name: "pgkeeper_informer_synced",
      help: "1 for each child kind whose informer has listed everything (a miss then means absent).",
      labelNames: ["kind"],
      registers,
      collect() {
        this.reset();
        for (const kind of readCache().synced) this.set({ kind }, 1);
      },
    });
    new Counter({
      name: "pgkeeper_cluster_reads_total",
      help: "Reads made by reconcile, by source: cache, api_get, api_list (0 API reads when converged).",
      labelNames: ["source"],
      registers,
      collect() {
        this.reset();
        for (const [source, n] of Object.entries(readCache().reads)) this.inc({ source }, n);
      },
    });
    this.failovers = new Counter({
      name: "pgkeeper_failovers_total",
      help: "Completed failovers, by Database.",
      labelNames: ["namespace", "database"],
      registers,
    });
    this.failoverDuration = new Histogram({
      name: "pgkeeper_failover_duration_seconds",
      help: "Time from the primary found unhealthy to the new primary serving.",
      buckets: FAILOVER_BUCKETS,
      registers,
    });
    this.instanceRole = new Gauge({
      name: "pgkeeper_instance_role",
      help: "1 for the instance's current role (label role: primary, replica, …).",
      labelNames: ["namespace", "database", "instance", "role"],
      registers,
    });
    this.instanceReady = new Gauge({
      name: "pgkeeper_instance_ready",
      help: "1 when the instance is ready, else 0.",
      labelNames: ["namespace", "database", "instance"],
      registers,
    });
    this.archivePending = new Gauge({
      name: "pgkeeper_wal_archive_pending_bytes",
      help: "WAL the primary keeps in pg_wal until it is archived (.ready segments × 16 MiB). Grows while the object store fails; alert well before the data volume fills.",
      labelNames: ["namespace", "database"],
      registers,
    });
    this.archiveFailing = new Gauge({
      name: "pgkeeper_wal_archive_failing",
      help: "1 while the primary's last archive attempt failed (pg_stat_archiver), else 0.",
      labelNames: ["namespace", "database"],
      registers,
    });
    this.instanceLag = new Gauge({
      name: "pgkeeper_instance_replication_lag_bytes",
      help: "WAL bytes a replica has received but not replayed, or is behind the primary.",
      labelNames: ["namespace", "database", "instance"],
      registers,
    });
  }

  /** Where the queue gauges read from at scrape time (no timers). */
  watchQueue(source: () => { depth: number; inFlight: number; delayed: number }): void {
    this.queueSource = source;
  }

  /** Where the cache gauges read from at scrape time. */
  watchCache(source: () => CacheStats): void {
    this.cacheSource = source;
  }

  observeReconcile(result: ReconcileResultLabel, seconds: number): void {
    this.reconcileDuration.observe({ result }, seconds);
  }

  /** A failed reconcile; `retried` when a retry was scheduled for it. */
  reconcileFailed(reason: string, retried: boolean): void {
    this.reconcileErrors.inc({ reason });
    if (retried) this.retries.inc();
  }

  setLeader(leading: boolean): void {
    this.leader.set(leading ? 1 : 0);
  }

  /** Called by the HA code when a failover completed. */
  recordFailover(namespace: string, database: string, seconds: number): void {
    this.failovers.inc({ namespace, database });
    this.failoverDuration.observe(seconds);
  }

  /** Replaces the per-instance series of one Database with `instances`. */
  setInstanceHealth(namespace: string, database: string, instances: InstanceHealth[]): void {
    this.removeInstances(namespace, database);
    const roles: RoleLabels[] = [];
    const seen: InstanceLabels[] = [];
    for (const i of instances) {
      const labels = { namespace, database, instance: i.name };
      this.instanceRole.set({ ...labels, role: i.role }, 1);
      roles.push({ ...labels, role: i.role });
      this.instanceReady.set(labels, i.ready ? 1 : 0);
      if (i.lagBytes !== undefined) this.instanceLag.set(labels, i.lagBytes);
      seen.push(labels);
    }
    this.series.set(databaseKey(namespace, database), { roles, instances: seen });
  }

  /** The primary's archiving; undefined (no object store, no probe yet) removes the series. */
  setArchiving(
    namespace: string,
    database: string,
    archiving: { pendingBytes: number; failing: boolean } | undefined,
  ): void {
    const labels = { namespace, database };
    if (!archiving) {
      this.archivePending.remove(labels);
      this.archiveFailing.remove(labels);
      return;
    }
    this.archivePending.set(labels, archiving.pendingBytes);
    this.archiveFailing.set(labels, archiving.failing ? 1 : 0);
  }

  /** Removes every series of a Database that is gone. */
  forgetDatabase(namespace: string, database: string): void {
    this.removeInstances(namespace, database);
    this.setArchiving(namespace, database, undefined);
    this.series.delete(databaseKey(namespace, database));
    this.failovers.remove({ namespace, database });
  }

  private removeInstances(namespace: string, database: string): void {
    const known = this.series.get(databaseKey(namespace, database));
    if (!known) return;
    for (const labels of known.roles) this.instanceRole.remove(labels);
    for (const labels of known.instances) {
      this.instanceReady.remove(labels);
      this.instanceLag.remove(labels);
    }
  }
}

let singleton: OperatorMetrics | undefined;

/** The process-wide metrics, with Node's process metrics (RSS, heap, event loop lag) too. */
export function metrics(): OperatorMetrics {
  if (!singleton) {
    singleton = new OperatorMetrics(register);
    collectDefaultMetrics({ register });
  }
  return singleton;
}
