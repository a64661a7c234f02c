/**
 * Warnings for changes admission lets through that destroy something later: kubectl prints
 * them, and a GitOps tool shows them in its sync result. A revert to an older manifest that
 * predates `backup.retentionDays` is valid, and would silently let pgBackRest expire the
 * backups that field kept at the next backup (issue 28).
 */
import { DEFAULT_BACKUP_RETENTION } from "../api/defaults";
import type { CheckedDatabase } from "./rules/types";

type Backup = { retention?: number; retentionDays?: number } | undefined;

const backupOf = (db: CheckedDatabase): Backup => db.spec?.backup as Backup;

/** retentionDays removed or lowered: the full backups only the old window kept go. */
function retentionDaysWarning(before: Backup, after: Backup): string | undefined {
  const was = before?.retentionDays;
  const is = after?.retentionDays;
  if (was === undefined || (is ?? 0) >= was) return undefined;
  const change = is === undefined ? "removed" : `lowered from ${was} to ${is}`;
  return `spec.backup.retentionDays ${change}: at the next backup pgBackRest expires the full backups (and WAL) only the ${was} days kept; restores to points before then become impossible. If a revert did this, put it back.`;
}

/** retention lowered (with an object store before and after): older full backups go. */
function retentionWarning(before: Backup, after: Backup): string | undefined {
  if (before === undefined || after === undefined) return undefined;
  const was = before.retention ?? DEFAULT_BACKUP_RETENTION;
  const is = after.retention ?? DEFAULT_BACKUP_RETENTION;
  if (is >= was) return undefined;
  return `spec.backup.retention lowered from ${was} to ${is}: at the next backup pgBackRest expires the older full backups and their WAL.`;
}

/** The warnings of an UPDATE from `old` to `db` (none on CREATE). Pure. */
export function admissionWarnings(db: CheckedDatabase, old: CheckedDatabase | undefined): string[] {
  if (!old) return [];
  const [before, after] = [backupOf(old), backupOf(db)];
  return [retentionDaysWarning(before, after), retentionWarning(before, after)].filter(
    (w): w is string => w !== undefined,
  );
}
