#!/bin/sh
# pgbackrest-restore-wal.sh (FILE_RESTORE_WAL): restore_command while a Database created from a
# backup replays the source's archive. `pgbackrest archive-get` exits 1 when the archive has no
# such file, which ends recovery there. Any other failure (the store unreachable, a bad key) must
# not read as "no more WAL": PostgreSQL would promote at whatever point it had reached and the
# Database would start without data it was asked to recover. Exit 126 makes PostgreSQL stop with
# a FATAL instead (a restore_command "terminated by a signal or not runnable"), and the entrypoint
# reports it and tries again.
#
# common.sh, with the layout.sh it sources, comes next: the generator pastes it in place of the
# line that sources it.
# shellcheck source-path=SCRIPTDIR source=common.sh
. ./common.sh
: "${2:?usage: pgbackrest-restore-wal.sh <WAL file> <destination>}"
status=0
with_store_keys "$FILE_SOURCE_S3_KEY" "$FILE_SOURCE_S3_KEY_SECRET" \
  "$source_s3_key" "$source_s3_key_secret" \
  pgbackrest --config="$CONFIG_DIR/$FILE_RECOVERY_CONF" --stanza="$STANZA" archive-get "$1" "$2" ||
  status=$?
case $status in
0 | 1) exit $status ;;
*)
  log "archive-get $1 failed (pgBackRest exit code $status): stopping recovery rather than ending it early"
  exit 126
  ;;
esac
