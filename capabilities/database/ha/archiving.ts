/**
 * The ContinuousArchiving condition, from the primary's pg_stat_archiver (ADR 0013). PostgreSQL
 * keeps every segment archive_command has not stored yet, so a failing store loses nothing, but
 * pg_wal grows: the message counts the segments waiting. Pure; table-tested.
 */
import type { ConditionInput } from "../api/conditions";
import type { ArchiverState } from "../instance/types";

const SEGMENT_MIB = 16;
export const SEGMENT_BYTES = SEGMENT_MIB * 1024 * 1024;

/** WAL kept in pg_wal until archived, in bytes (PostgreSQL's default 16 MiB segments). */
export const pendingBytes = (archiver: ArchiverState): number => archiver.waiting * SEGMENT_BYTES;

/**
 * Whether the WAL waiting to be archived fills half of the data volume or more: past that, a
 * store that stays down fills the volume and stops the primary (PostgreSQL cannot write WAL), so
 * someone must act (fix the store, grow the volume) well before.
 */
export function backlogPastHalf(archiver: ArchiverState | undefined, volumeBytes: number): boolean {
  return archiver !== undefined && volumeBytes > 0 && pendingBytes(archiver) * 2 >= volumeBytes;
}

/** The condition, or undefined when there is nothing new to say (no probe of a primary yet). */
export function archivingCondition(
  archiver: ArchiverState | undefined,
): ConditionInput | undefined {
  if (!archiver) return undefined;
  const waiting =
    archiver.waiting > 0
      ? `; ${archiver.waiting} segment(s) (${archiver.waiting * SEGMENT_MIB} MiB) wait in pg_wal, kept until archived`
      : "";
  if (archiver.imageHasPgBackRest === false)
    return {
      type: "ContinuousArchiving",
      status: "False",
      reason: "PgBackRestMissing",
      message: `The primary's image has no pgbackrest, which archiving and backups run: no WAL reaches the object store until spec.image names an image with pgBackRest (pgkeeper's own has it)${waiting}`,
    };
  const failedLast =
    archiver.lastFailedAt !== undefined &&
    (archiver.lastArchivedAt === undefined || archiver.lastFailedAt > archiver.lastArchivedAt);
  if (failedLast)
    return {
      type: "ContinuousArchiving",
      status: "False",
      reason: "ArchiveFailing",
      message: `Archiving ${archiver.lastFailedWal ?? "a WAL file"} to the object store failed at ${archiver.lastFailedAt}${waiting}`,
    };
  if (archiver.lastArchivedWal === undefined)
    return {
      type: "ContinuousArchiving",
      status: "Unknown",
      reason: "NothingArchivedYet",
      message: `No WAL segment completed since archiving started${waiting}`,
    };
  return {
    type: "ContinuousArchiving",
    status: "True",
    reason: "Archiving",
    message: `Last archived ${archiver.lastArchivedWal} at ${archiver.lastArchivedAt}${waiting}`,
  };
}
