#!/bin/sh
# The backup host's script (a Job per Backup, ADR 0013): `pgbackrest backup` into the Database's
# repository, reaching the instances through their TLS servers, then optionally `verify` of that
# backup. The result goes into the container's termination message, which the kubelet keeps in
# the pod status, so the operator reads it with no log or exec rights:
#
# - success: `{"label": "<label>", "oldestStop": <epoch>, "info": <pgbackrest info --set=<label>
#   --output=json>}`, oldestStop being the end of the oldest backup left in the repository after
#   retention (the first point a restore can reach);
# - failure: `{"error": "<pgBackRest's ERROR lines>"}`.
#
# The configuration comes in PGKEEPER_PGBACKREST_CONF (no secrets in it: the store's keys are
# files of the credentials volume, from the user's Secret, given to each pgbackrest command
# alone) and is written to /tmp, the writable volume.
#
# Retention: the configuration's repo1-retention-full (spec.backup.retention) expires older full
# backups after each backup. With PGKEEPER_RETENTION_DAYS (spec.backup.retentionDays) that count
# is only a minimum: the configuration then expires nothing by itself, and this script expires
# down to max(count, the full backups a restore to any point of those days needs).
#
# It runs as the Job's command (`sh -c`), not from a file. layout.sh comes next: the generator
# pastes it in place of the line that sources it.
set -eu
# shellcheck source-path=SCRIPTDIR source=layout.sh
. ./layout.sh

# The kubelet keeps at most this much of a termination message. TypeScript reads it from here
# (TERMINATION_MESSAGE_LIMIT in the generated backup-job.ts).
TERMINATION_MESSAGE_LIMIT=4096

# How many full backups to keep (awk; TypeScript reads it from here, as FULL_BACKUPS_TO_KEEP_AWK,
# to test it alone): reads "<stop epoch> <type>" per backup, oldest first, and prints max(min,
# the full backups that ended within the last `days` before `now`, plus the newest one before
# them, which a restore to the window's start replays from). Fails when it reads no full backup:
# the output was not understood, and expiring on a guess could delete what the window needs.
# shellcheck disable=SC2016 # an awk program: its $1 and $2 are awk's fields
FULL_BACKUPS_TO_KEEP_AWK='$2 == "full" { fulls++; if ($1 >= now - days * 86400) recent++; else older = 1 }
END { if (fulls == 0) exit 1; need = recent + older; print (need > min ? need : min) }'

WORK=${PGKEEPER_WORK_DIR:-/tmp}
CONF="$WORK/pgbackrest.conf"
OUT="$WORK/pgbackrest.out"
RESULT=${PGKEEPER_RESULT_FILE:-/dev/termination-log}
printf '%s\n' "$PGKEEPER_PGBACKREST_CONF" >"$CONF"

# JSON string of stdin: other control characters dropped, backslashes and quotes escaped, lines
# joined with ";".
json_string() {
  printf '"'
  tr -d '\001-\010\013-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\n\t' '; ' | sed -e 's/;$//'
  printf '"'
}

# pgBackRest's ERROR and WARN lines; without any, the output's last lines, or what failed.
fail() {
  { grep -E 'ERROR|WARN' "$OUT" || tail -n 5 "$OUT"; } >"$OUT.why" || true
  [ -s "$OUT.why" ] || echo "$1 failed with no output" >"$OUT.why"
  { printf '{"error":'; tail -n 5 "$OUT.why" | cut -c1-600 | json_string; printf '}'; } >"$RESULT"
  exit 1
}

# PID 1 of its container: a shell there ignores SIGTERM, so deleting the Job (its Backup
# deleted) would leave pgBackRest copying for the whole grace period. It is passed on.
CHILD=""
trap '[ -z "$CHILD" ] || kill -TERM "$CHILD" 2>/dev/null; exit 143' TERM

for file in "$FILE_REPO1_S3_KEY" "$FILE_REPO1_S3_KEY_SECRET"; do
  if [ ! -f "$CREDENTIALS_DIR/$file" ]; then
    echo "ERROR: the object store's key file $CREDENTIALS_DIR/$file is missing" >"$OUT"
    fail "reading the object store's keys"
  fi
done
S3_KEY=$(cat "$CREDENTIALS_DIR/$FILE_REPO1_S3_KEY")
S3_KEY_SECRET=$(cat "$CREDENTIALS_DIR/$FILE_REPO1_S3_KEY_SECRET")

run() {
  PGBACKREST_REPO1_S3_KEY=$S3_KEY PGBACKREST_REPO1_S3_KEY_SECRET=$S3_KEY_SECRET \
    pgbackrest --config="$CONF" --stanza="$STANZA" "$@" >"$OUT" 2>&1 &
  CHILD=$!
  wait "$CHILD" || { CHILD=""; cat "$OUT"; fail "pgbackrest $1"; }
  CHILD=""
  cat "$OUT"
}

# The stanza is made at the first WAL push (pgbackrest-archive.sh); a backup right after the
# Database started can come first. Idempotent, and it refuses a repository of another system.
run stanza-create
run backup --type="${PGKEEPER_BACKUP_TYPE:-full}"
LABEL=$(sed -n 's/.*new backup label = \([0-9FDI_-]*\).*/\1/p' "$OUT" | tail -n 1)
if [ -z "$LABEL" ]; then
  echo "ERROR: no backup label in pgBackRest's output" >>"$OUT"
  fail "pgbackrest backup"
fi
if [ "${PGKEEPER_BACKUP_VERIFY:-n}" = y ]; then
  run verify --set="$LABEL"
fi
if [ -n "${PGKEEPER_RETENTION_DAYS:-}" ]; then
  run info --output=json
  # pgBackRest writes JSON keys in order, so each backup's "timestamp" is followed by its "type".
  KEEP=$(grep -o '"timestamp":{"start":[0-9]*,"stop":[0-9]*},"type":"[a-z]*"' "$OUT" |
    sed 's/.*"stop":\([0-9]*\)},"type":"\([a-z]*\)"/\1 \2/' |
    awk -v min="${PGKEEPER_RETENTION_FULL:-1}" -v days="$PGKEEPER_RETENTION_DAYS" \
      -v now="${PGKEEPER_NOW:-$(date +%s)}" "$FULL_BACKUPS_TO_KEEP_AWK") || {
    echo "ERROR: no full backup found in pgBackRest's info; nothing expired" >>"$OUT"
    fail "retention"
  }
  run expire --repo1-retention-full="$KEEP"
fi
run info --output=json
# Backups are listed oldest first; only their timestamps have a numeric "stop".
OLDEST=$(grep -o '"timestamp":{"start":[0-9]*,"stop":[0-9]*}' "$OUT" | head -n 1 | sed 's/.*"stop":\([0-9]*\)}/\1/')
run info --set="$LABEL" --output=json
INFO=$(cat "$OUT")
printf '{"label":"%s","oldestStop":%s,"info":%s}' "$LABEL" "${OLDEST:-null}" "$INFO" >"$RESULT"
if [ "$(wc -c <"$RESULT")" -gt "$TERMINATION_MESSAGE_LIMIT" ]; then
  # Too long for the pod status: the label, which `pgbackrest info` completes.
  printf '{"label":"%s","oldestStop":%s}' "$LABEL" "${OLDEST:-null}" >"$RESULT"
fi
