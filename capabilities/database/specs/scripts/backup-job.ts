/**
 * The backup host's script (a Job per Backup, ADR 0013): `pgbackrest backup` into the Database's
 * repository, reaching the instances through their TLS servers, then optionally `verify` of that
 * backup. The result goes into the container's termination message, which the kubelet keeps in
 * the pod status, so the operator reads it with no log or exec rights:
 *
 * - success: `{"label": "<label>", "oldestStop": <epoch>, "info": <pgbackrest info --set=<label>
 *   --output=json>}`, oldestStop being the end of the oldest backup left in the repository after
 *   retention (the first point a restore can reach);
 * - failure: `{"error": "<pgBackRest's ERROR lines>"}`.
 *
 * The configuration comes in PGKEEPER_PGBACKREST_CONF (no secrets in it: the store's keys are
 * PGBACKREST_REPO1_S3_KEY* from the user's Secret) and is written to /tmp, the writable volume.
 */
import { STANZA } from "../pgbackrest";

/** The kubelet keeps at most this much of a termination message. */
export const TERMINATION_MESSAGE_LIMIT = 4096;

export const BACKUP_JOB_SH = `set -eu
CONF=/tmp/pgbackrest.conf
OUT=/tmp/pgbackrest.out
RESULT=\${PGKEEPER_RESULT_FILE:-/dev/termination-log}
printf '%s\\n' "$PGKEEPER_PGBACKREST_CONF" >"$CONF"

# JSON string of stdin: other control characters dropped, backslashes and quotes escaped, lines
# joined with ";".
json_string() {
  printf '"'
  tr -d '\\001-\\010\\013-\\037' | sed -e 's/\\\\/\\\\\\\\/g' -e 's/"/\\\\"/g' | tr '\\n\\t' '; ' | sed -e 's/;$//'
  printf '"'
}

fail() {
  { printf '{"error":'; grep -E 'ERROR|WARN' "$OUT" | tail -n 5 | cut -c1-600 | json_string; printf '}'; } >"$RESULT"
  exit 1
}

run() {
  pgbackrest --config="$CONF" --stanza=${STANZA} "$@" >"$OUT" 2>&1 || { cat "$OUT"; fail; }
  cat "$OUT"
}

# The stanza is made at the first WAL push (pgbackrest-archive.sh); a backup right after the
# Database started can come first. Idempotent, and it refuses a repository of another system.
run stanza-create
run backup --type="\${PGKEEPER_BACKUP_TYPE:-full}"
LABEL=$(sed -n 's/.*new backup label = \\([0-9FDI_-]*\\).*/\\1/p' "$OUT" | tail -n 1)
if [ -z "$LABEL" ]; then
  echo "no backup label in pgBackRest's output" >>"$OUT"
  fail
fi
if [ "\${PGKEEPER_BACKUP_VERIFY:-n}" = y ]; then
  run verify --set="$LABEL"
fi
run info --output=json
# Backups are listed oldest first; only their timestamps have a numeric "stop".
OLDEST=$(grep -o '"timestamp":{"start":[0-9]*,"stop":[0-9]*}' "$OUT" | head -n 1 | sed 's/.*"stop":\\([0-9]*\\)}/\\1/')
run info --set="$LABEL" --output=json
INFO=$(cat "$OUT")
printf '{"label":"%s","oldestStop":%s,"info":%s}' "$LABEL" "\${OLDEST:-null}" "$INFO" >"$RESULT"
if [ "$(wc -c <"$RESULT")" -gt ${TERMINATION_MESSAGE_LIMIT} ]; then
  # Too long for the pod status: the label, which \`pgbackrest info\` completes.
  printf '{"label":"%s","oldestStop":%s}' "$LABEL" "\${OLDEST:-null}" >"$RESULT"
fi
`;
