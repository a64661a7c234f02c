/**
 * Waiting for a Database to be whole again: every instance ready, the replicas streaming from
 * the primary, and its status saying so. Diagnosed on timeout (status, pods, operator log).
 */
import { get } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { type OperatorLog, diagnosed } from "./diagnosis";

interface HealthStatus {
  phase?: string;
  instances?: { ready: boolean; role: string; streaming?: boolean }[];
}

/** Resolves with the Database's status (as `S`) once `instances` are ready and streaming. */
export function healthy<S extends HealthStatus>(
  ns: string,
  name: string,
  instances: number,
  operatorLog?: OperatorLog,
  timeoutMs = 300_000,
): Promise<S> {
  return diagnosed(
    waitFor(
      `${name}: ${instances} ready instances, replicas streaming`,
      () => {
        const s = (get("database", ns, name)?.status ?? {}) as S;
        const all = s.instances ?? [];
        const ok =
          s.phase === "Ready" &&
          all.length === instances &&
          all.every(i => i.ready && (i.role === "primary" || i.streaming === true));
        return ok ? s : undefined;
      },
      { timeoutMs, intervalMs: 2000 },
    ),
    ns,
    name,
    operatorLog,
  );
}
