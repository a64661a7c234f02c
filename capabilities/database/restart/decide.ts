/**
 * A rolling restart asked for with the pgkeeper.dev/restart annotation, as a pure function of
 * what one pass sees. The request is recorded in status.restart first; its time goes into the
 * pod template (specs/statefulset.ts), which makes every instance outdated, and high availability
 * rolls them as it rolls any template change: replicas first, one at a time once every instance
 * is healthy, then a switchover, then the old primary. Done once every instance runs a pod made
 * from that template and is ready; the annotation is then removed (only when it still asks for
 * the restart that was done: a new value is a new request).
 */
import type { DatabaseStatus } from "../api/database-schema";

export type RestartStatus = NonNullable<DatabaseStatus["restart"]>;

export interface RestartView {
  /** The annotation's value, when set. */
  request?: string;
  restart?: RestartStatus;
  /** spec.instances. */
  instances: number;
  /** The instance pods: the restart time their template carried, and whether they are ready. */
  pods: { restartedAt?: string; ready: boolean }[];
  now: Date;
}

export interface RestartDecision {
  /** status.restart to record (undefined: as it is). */
  restart?: RestartStatus;
  removeAnnotation: boolean;
  /** An Event's message, when something began or ended. */
  event?: string;
}

const NOTHING: RestartDecision = { removeAnnotation: false };

/** Every instance runs a pod of the template that carries `requestedAt`, and is ready. */
const allRestarted = (v: RestartView, requestedAt: string): boolean =>
  v.pods.length >= v.instances && v.pods.every(p => p.ready && p.restartedAt === requestedAt);

export function decideRestart(v: RestartView): RestartDecision {
  const r = v.restart;
  if (r?.phase === "Restarting") {
    if (!allRestarted(v, r.requestedAt)) return NOTHING;
    return {
      restart: { ...r, phase: "Done", finishedAt: v.now.toISOString() },
      removeAnnotation: v.request === r.request,
      event: `Every instance restarted (asked at ${r.requestedAt})`,
    };
  }
  if (v.request === undefined) return NOTHING;
  // Done, and the annotation still asks for it: its removal did not happen yet.
  if (r?.phase === "Done" && r.request === v.request) return { removeAnnotation: true };
  return {
    restart: { request: v.request, requestedAt: v.now.toISOString(), phase: "Restarting" },
    removeAnnotation: false,
    event: "Restarting every instance: the replicas first, then a switchover, then the old primary",
  };
}
