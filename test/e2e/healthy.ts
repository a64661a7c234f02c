/**
 * Waiting for a Database to be whole again: every instance ready, and the replicas streaming
 * from the primary. The status is only the cue to look: the evidence is PostgreSQL's own (issue
 * 28), asked on each pod: exactly one instance out of recovery; every other one in its
 * pg_stat_replication as `streaming`, receiving on the primary's timeline. Diagnosed on timeout
 * (status, pods, operator log).
 */
import { get, list } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { type OperatorLog, diagnosed } from "./diagnosis";
import { psql, superuserAt } from "./psql";

interface HealthStatus {
  phase?: string;
  instances?: { ready: boolean; role: string; streaming?: boolean }[];
}

/** The primary's timeline, from the WAL file it writes (pg_control lags until a checkpoint). */
const PRIMARY_SQL = `SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int
  || ' ' || coalesce((SELECT string_agg(application_name, ',' ORDER BY application_name)
       FROM pg_stat_replication WHERE state = 'streaming'), '')`;
const REPLICA_SQL = `SELECT coalesce((SELECT status || ' ' || received_tli FROM pg_stat_wal_receiver), 'none')`;

/**
 * What PostgreSQL says about the Database's pods: undefined when they form one primary with
 * `instances - 1` replicas streaming from it on its timeline, else why not.
 */
export function unhealthyInPostgres(
  ns: string,
  name: string,
  instances: number,
): string | undefined {
  const pods = list(
    "pod",
    ns,
    `pgkeeper.dev/database=${name},app.kubernetes.io/component=instance`,
  ).filter(p => !p.metadata.deletionTimestamp);
  if (pods.length !== instances) return `${pods.length} pods, not ${instances}`;
  const answers = pods.map(p => {
    const at = superuserAt(ns, name, p);
    const inRecovery = psql(at, "SELECT pg_is_in_recovery()") === "t";
    return { name: p.metadata.name, at, inRecovery };
  });
  const primaries = answers.filter(a => !a.inRecovery);
  if (primaries.length !== 1)
    return `${primaries.length} instances out of recovery: ${primaries.map(p => p.name).join(", ")}`;
  const [timeline, streaming] = psql(primaries[0].at, PRIMARY_SQL).split(" ");
  const following = new Set(streaming ? streaming.split(",") : []);
  for (const replica of answers.filter(a => a.inRecovery)) {
    if (!following.has(replica.name))
      return `${replica.name} is not streaming in ${primaries[0].name}'s pg_stat_replication`;
    const receiver = psql(replica.at, REPLICA_SQL);
    if (receiver !== `streaming ${timeline}`)
      return `${replica.name}'s WAL receiver: ${receiver}, the primary's timeline is ${timeline}`;
  }
  return undefined;
}

/**
 * Resolves with the Database's status (as `S`) once `instances` are ready and, as PostgreSQL
 * answers, the replicas stream from the one primary on its timeline.
 */
export function healthy<S extends HealthStatus>(
  ns: string,
  name: string,
  instances: number,
  operatorLog?: OperatorLog,
  timeoutMs = 300_000,
): Promise<S> {
  let lastAnswer = "";
  return diagnosed(
    waitFor(
      `${name}: ${instances} ready instances, replicas streaming (as PostgreSQL says)`,
      () => {
        const s = (get("database", ns, name)?.status ?? {}) as S;
        const all = s.instances ?? [];
        const looksWhole =
          s.phase === "Ready" &&
          all.length === instances &&
          all.every(i => i.ready && (i.role === "primary" || i.streaming === true));
        if (!looksWhole) return undefined;
        try {
          lastAnswer = unhealthyInPostgres(ns, name, instances) ?? "";
        } catch (err) {
          lastAnswer = (err as Error).message; // a pod between addresses, a server restarting
        }
        return lastAnswer === "" ? s : undefined;
      },
      { timeoutMs, intervalMs: 2000 },
    ).catch((err: Error) => {
      throw lastAnswer ? new Error(`${err.message}; PostgreSQL said: ${lastAnswer}`) : err;
    }),
    ns,
    name,
    operatorLog,
  );
}
