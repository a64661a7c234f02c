/**
 * What reconcile and HA get from instance/: the SQL edge (every statement the operator runs on an
 * instance) and the monitor's view of each instance. Injected once where the controller is built
 * (runtime.ts), with its writes fenced by leadership there (guard-sql.ts); absent in unit tests
 * of the steps that need no PostgreSQL.
 */
import type { ProbeRecord, ProbeTarget } from "./monitor";
import type { InstanceSql } from "./types";

/** The instance monitor as reconcile drives it: what to probe, and what the probes saw. */
export interface MonitorPort {
  track(key: string, targets: ProbeTarget[], maxLagBytes?: number): void;
  view(key: string): Map<string, ProbeRecord>;
  untrack?(key: string): void;
  untrackAll?(): void;
}

export interface InstancePort {
  sql: InstanceSql;
  monitor: MonitorPort;
}
