/**
 * Whether a probe that got no answer in time counts against its instance (ADR 0038). A refused
 * connection or an error PostgreSQL returned is evidence about that instance; silence is not
 * always: on a saturated node, or with the operator itself starved of CPU, healthy servers miss
 * the probe's deadline too, and counting those misses failed over healthy Databases, whose pods'
 * restarts loaded the node further (bench/fleet: 42 failovers in 3 minutes across 16 healthy
 * Databases). A timeout is discounted when:
 * - the operator's event loop lagged a third of the probe's timeout or more while it waited
 *   (the answer may have been there; we were not);
 * - instances of another Database on the same node went silent too, while some instance on that
 *   node answered within this probe's own window: the node is alive and slow. A node that died
 *   or was cut off answers nothing, so its silence still counts; but the operator's own node is
 *   alive by the fact that the operator runs there, answers or not (a saturated node can leave
 *   every server silent for a second and more: bench/fleet at 20 Databases).
 * Never for longer than SLOW_NODE_HOLD_MS of one instance's run of failures: two primaries that
 * hang at once on one live node are failed over after it.
 */

/** One probe's end, as the monitor keeps it for the verdicts of others. */
export interface ProbeOutcome {
  /** The Database (namespace/name). */
  key: string;
  /** The node its pod runs on, when known. */
  node?: string;
  /** When the probe ended (ms). */
  at: number;
  answered: boolean;
}

export interface SilentProbe {
  key: string;
  node?: string;
  /** When this probe began and gave up (ms). */
  startedAt: number;
  now: number;
  timeoutMs: number;
  /** When this instance's run of failures began (now, for the first). */
  failingSince: number;
  /** The operator's longest event-loop lag (ms) while the probe waited. */
  operatorLagMs: number;
  /** The node the operator itself runs on, when known (in a pod). */
  operatorNode?: string;
  /** Other probes' ends, the recent ones at least (recentWindowMs). */
  recent: readonly ProbeOutcome[];
  /** How far back another Database's silence is looked for (the failure threshold's span). */
  windowMs: number;
}

/** The longest one instance's silence is discounted for. */
export const SLOW_NODE_HOLD_MS = 60_000;

/** The share of the probe's timeout the operator may lag before its own slowness is the cause. */
const LAG_SHARE = 1 / 3;

export type DiscountReason = "operatorLag" | "slowNode";

export interface Discount {
  reason: DiscountReason;
  message: string;
}

/** Why this silence does not count against the instance, or undefined when it does. */
export function discountSilence(p: SilentProbe): Discount | undefined {
  if (p.now - p.failingSince >= SLOW_NODE_HOLD_MS) return undefined;
  if (p.operatorLagMs >= p.timeoutMs * LAG_SHARE)
    return {
      reason: "operatorLag",
      message: `the operator's event loop lagged ${Math.round(p.operatorLagMs)} ms while it waited`,
    };
  if (p.node === undefined) return undefined;
  const onNode = p.recent.filter(o => o.node === p.node);
  const alsoSilent = new Set(
    onNode
      .filter(o => !o.answered && o.key !== p.key && o.at >= p.now - p.windowMs)
      .map(o => o.key),
  );
  const alive = p.node === p.operatorNode || onNode.some(o => o.answered && o.at >= p.startedAt);
  if (alsoSilent.size === 0 || !alive) return undefined;
  return {
    reason: "slowNode",
    message: `instances of ${alsoSilent.size + 1} Databases on node ${p.node} went silent while others there answered: the node is slow`,
  };
}
