/**
 * backup.sh: the command of the backup CronJob's container (passed inline, not through the
 * instance ConfigMap, so changing it never changes the instances' config hash).
 *
 * Takes a compressed tar base backup of the primary (through `<db>-rw`, with the WAL needed to
 * make it consistent) into `<dir>/.partial-<stamp>`, renames it to `<dir>/<stamp>` only when
 * complete, then deletes all but the `retention` newest complete backups. Stamps are UTC
 * `YYYYMMDDTHHMMSSZ`, so name order is time order and partial ones never count.
 */
import { BACKUP_DIR, ENV, SUPERUSER } from "../layout";
import { COMMON_SH } from "./common";

/** Name pattern of a complete backup directory. */
const BACKUP_NAME_PATTERN = "^[0-9]{8}T[0-9]{6}Z$";

export const BACKUP_SH = `${COMMON_SH}
: "\${PGHOST:?PGHOST must be set}"
: "\${${ENV.retention}:?${ENV.retention} must be set}"
umask 077
backup_dir=\${PGKEEPER_BACKUP_DIR:-${BACKUP_DIR}}
find_pg_bin pg_basebackup

stamp=$(date -u +%Y%m%dT%H%M%SZ)
rm -rf "$backup_dir"/.partial-*
mkdir -p "$backup_dir/.partial-$stamp"
log "Base backup $stamp started"
"$PG_BIN/pg_basebackup" -h "$PGHOST" -p "$PORT" -U ${SUPERUSER} -w -D "$backup_dir/.partial-$stamp" \\
  -F tar -z -X stream -c fast -l "pgkeeper $stamp"
mv "$backup_dir/.partial-$stamp" "$backup_dir/$stamp"
log "Base backup $stamp completed"

count=0
# shellcheck disable=SC2010 # the names are our own UTC stamps: no spaces, no globbing
for name in $(ls -1 "$backup_dir" | grep -E '${BACKUP_NAME_PATTERN}' | sort -r); do
  count=$((count + 1))
  if [ "$count" -gt "$${ENV.retention}" ]; then
    rm -rf "\${backup_dir:?}/$name"
    log "Pruned base backup $name"
  fi
done
`;
