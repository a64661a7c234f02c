/**
 * What became of a parameter that an earlier major has and a later one does not, for the denial
 * that refuses it (a new Database's, or the first step of a major upgrade, which must never roll
 * out a configuration the new server refuses to start with). Which major had it last comes from
 * the catalogs themselves; what replaces it is PostgreSQL's release notes, kept here.
 */
import { catalogMajors, parameterEntry } from "./index";

/** Old name -> its successor, or what to do instead, from the release notes. */
const SUCCESSORS: Readonly<Record<string, { use?: string; advice?: string }>> = {
  force_parallel_mode: { use: "debug_parallel_query" },
  ssl_ecdh_curve: { use: "ssl_groups" },
  vacuum_defer_cleanup_age: {
    advice: "hot_standby_feedback, which the standbys report to the primary, keeps what they read",
  },
  stats_temp_directory: { advice: "statistics are kept in shared memory since PostgreSQL 15" },
  old_snapshot_threshold: { advice: "it has no successor" },
  db_user_namespace: { advice: "it has no successor" },
  trace_recovery_messages: { advice: "it has no successor" },
};

/**
 * Why `name`, unknown to `major`, is still worth naming: the latest earlier major that has it and
 * its successor or the advice of the release notes; undefined when no earlier major has it.
 */
export function lostParameter(major: string, name: string): string | undefined {
  if (parameterEntry(major, name)) return undefined;
  const had = catalogMajors()
    .filter(m => Number(m) < Number(major) && parameterEntry(m, name))
    .at(-1);
  if (!had) return undefined;
  const spelled = parameterEntry(had, name)?.name ?? name;
  const successor = SUCCESSORS[spelled];
  const then = `PostgreSQL ${had} has it, ${major} does not`;
  if (successor?.use && parameterEntry(major, successor.use))
    return `${then}: use ${successor.use}`;
  return successor?.advice ? `${then}; ${successor.advice}` : then;
}
