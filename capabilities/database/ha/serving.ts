/**
 * Which replicas serve reads through `<db>-ro`: streaming from the primary, on its timeline, and
 * not too far behind it. A replica that fails any of these leaves the Service (its role label
 * changes) and the Database shows Degraded with the reason. Hysteresis: it leaves beyond
 * spec.readOnly.maxLag and comes back within half of it, so a replica near the limit does not
 * flap in and out of the Service on every probe. Pure; table-tested.
 */
import { InstanceView } from "./decide";
import { lagBytes } from "../instance/lsn";

/** Why the replica is not following a primary at all, or undefined when it streams. */
function streamingProblem(replica: InstanceView): string | undefined {
  if (!replica.pod?.ready) return "not ready";
  const probe = replica.sql?.ok ? replica.sql.probe : undefined;
  if (!probe) return "not answering SQL probes";
  if (probe.walReceiverStatus !== "streaming")
    return `not streaming (WAL receiver ${probe.walReceiverStatus ?? "not running"})`;
  return undefined;
}

/** Why `replica` must not serve reads, or undefined when it may. */
export function notServingReason(
  replica: InstanceView,
  primary: InstanceView | undefined,
  maxLagBytes: number,
  servingNow: boolean,
): string | undefined {
  const problem = streamingProblem(replica);
  const probe = replica.sql?.probe;
  if (problem || !probe) return problem;
  const source = primary?.sql?.ok ? primary.sql.probe : undefined;
  // No primary to compare with (it failed; a failover is being decided): nothing changes.
  if (!source || source.inRecovery) return servingNow ? undefined : "no primary to compare with";
  if (probe.timeline !== source.timeline)
    return `on timeline ${probe.timeline}, the primary on ${source.timeline}`;
  return lagProblem(lagBytes(source.lsn, probe.lsn), servingNow ? maxLagBytes : maxLagBytes / 2);
}

/** The limit, not the lag, goes in the reason: it stays the same while the lag moves. */
const lagProblem = (lag: bigint, limit: number): string | undefined =>
  Number(lag) > limit ? `more than ${limit} bytes behind the primary` : undefined;
