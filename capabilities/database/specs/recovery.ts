/**
 * What a Database created from a backup (spec.bootstrap.recovery) adds to its ConfigMap: the
 * source repository's pgBackRest configuration, the restore options the entrypoint passes to
 * `pgbackrest restore` (one per line: values may hold spaces), restore_command's wrapper, and the
 * SQL run on the restored cluster (this Database's passwords and roles). Pure; the entrypoint does
 * the rest (scripts/entrypoint.sh, bootstrap_from_backup).
 */
import type { ResolvedRecovery } from "../api/defaults";
import {
  FILE_RECOVERY_CONF,
  FILE_RECOVERY_OPTIONS,
  FILE_RECOVERY_SQL,
  FILE_RESTORE_WAL,
  SOURCE_CA_FILE,
} from "./layout";
import { pgbackrestConf } from "./pgbackrest";
import { RESTORE_WAL_SH } from "./scripts/restore-wal";
import { RECOVERY_SQL } from "./scripts/sql";

type Target = NonNullable<ResolvedRecovery["target"]>;

/**
 * An RFC 3339 time as pgBackRest parses it for choosing the backup set ("YYYY-MM-DD HH:MM:SS"
 * with an offset; PostgreSQL reads the same for recovery_target_time). In UTC, with the
 * fraction kept as written: an offset shift never touches it, and a rounded fraction would move
 * the target.
 */
export function pgbackrestTime(rfc3339: string): string {
  const match = /^(.+?T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.exec(rfc3339);
  if (!match) throw new Error(`not an RFC 3339 time: ${rfc3339}`);
  const [, seconds, fraction = "", offset] = match;
  const utc = new Date(`${seconds}${offset.toUpperCase()}`);
  if (isNaN(utc.getTime())) throw new Error(`not an RFC 3339 time: ${rfc3339}`);
  return `${utc.toISOString().slice(0, 19).replace("T", " ")}${fraction}+00`;
}

function targetOptions(target: Target | undefined): string[] {
  // Promote where recovery stops: pgBackRest's default would pause there, waiting for someone.
  const at = (type: string, value: string) => [`--type=${type}`, `--target=${value}`];
  const promote = "--target-action=promote";
  if (target?.time !== undefined) return [...at("time", pgbackrestTime(target.time)), promote];
  if (target?.lsn !== undefined) return [...at("lsn", target.lsn), promote];
  if (target?.xid !== undefined) return [...at("xid", String(target.xid)), promote];
  if (target?.name !== undefined) return [...at("name", target.name), promote];
  if (target?.immediate) return ["--type=immediate", promote];
  // The end of the archive: PostgreSQL promotes once restore_command finds no more WAL.
  return ["--type=default"];
}

/** The options of `pgbackrest restore`, one per line, after the entrypoint's own. */
export function restoreOptions(recovery: ResolvedRecovery): string[] {
  return [
    ...targetOptions(recovery.target),
    // No --target-timeline: PostgreSQL's default (latest) follows a failover the source went
    // through after the backup.
    ...(recovery.backupSet !== undefined ? [`--set=${recovery.backupSet}`] : []),
  ];
}

/** The ConfigMap entries; none without bootstrap.recovery. */
export function recoveryFiles(recovery: ResolvedRecovery | undefined): Record<string, string> {
  if (!recovery) return {};
  const store = recovery.source.objectStore;
  return {
    [FILE_RECOVERY_CONF]: pgbackrestConf(
      { ...store, ...(store.ca ? { caFile: SOURCE_CA_FILE } : {}) },
      recovery.source.repositoryPath,
    ),
    [FILE_RECOVERY_OPTIONS]: `${restoreOptions(recovery).join("\n")}\n`,
    [FILE_RESTORE_WAL]: RESTORE_WAL_SH,
    [FILE_RECOVERY_SQL]: RECOVERY_SQL,
  };
}
