/**
 * The rolling restart asked for with the pgkeeper.dev/restart annotation (restart/decide.ts
 * decides): the request recorded in status.restart, whose time the next pass's pod template
 * carries; high availability rolls the outdated instances; the annotation removed once every
 * instance is back.
 */
import { ANNOTATION_RESTART, ANNOTATION_RESTARTED_AT, ordinalOf } from "../api/names";
import { isPodReady } from "../cluster/objects";
import { decideRestart, RestartDecision, RestartView } from "../restart/decide";
import type { Pass, StepResult } from "./pass";

/** While instances restart, look again at least this often (pods also wake the pass). */
const RESTARTING_REQUEUE_MS = 5000;

/** The instance pods the restart counts: the restart time their template carried, ready or not. */
const instancePods = (pass: Pass): RestartView["pods"] =>
  pass.pods
    .filter(p => ordinalOf(p.metadata?.name ?? "") < pass.spec.instances)
    .map(p => ({
      restartedAt: p.metadata?.annotations?.[ANNOTATION_RESTARTED_AT],
      ready: isPodReady(p),
    }));

async function carryOut(pass: Pass, decision: RestartDecision): Promise<void> {
  const { db, writer, deps } = pass;
  if (decision.restart) await writer.update({ restart: decision.restart });
  if (decision.removeAnnotation) await writer.removeAnnotation(ANNOTATION_RESTART);
  if (decision.event)
    await deps.cluster.recordEvent(db, {
      type: "Normal",
      reason: decision.restart?.phase === "Done" ? "Restarted" : "Restarting",
      message: decision.event,
    });
}

export async function restartStep(pass: Pass): Promise<StepResult> {
  try {
    await carryOut(
      pass,
      decideRestart({
        request: pass.db.metadata?.annotations?.[ANNOTATION_RESTART],
        restart: pass.writer.status?.restart,
        instances: pass.spec.instances,
        pods: instancePods(pass),
        now: pass.deps.now(),
      }),
    );
    return pass.writer.status?.restart?.phase === "Restarting"
      ? { requeueAfterMs: RESTARTING_REQUEUE_MS }
      : {};
  } catch (failure) {
    return { failure };
  }
}
