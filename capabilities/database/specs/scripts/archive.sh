#!/bin/sh
# pgbackrest-archive.sh (FILE_ARCHIVE): PostgreSQL's archive_command on every instance (only a
# primary runs it: archive_mode = on). It pushes one WAL segment or history file into the
# pgBackRest repository and returns once it is stored (synchronously: see specs/pgbackrest.ts).
# PostgreSQL keeps the file and calls again until it succeeds, so a failure loses nothing.
#
# The stanza is created here, at the first push that finds none (ADR 0013): `stanza-create` is
# idempotent, needs the running server and its data directory, and this is the one place that
# has both. A stanza made for another database system is never touched: the push fails, and the
# operator's ContinuousArchiving condition says why.
#
# common.sh, with the layout.sh it sources, comes next: the generator pastes it in place of the
# line that sources it.
# shellcheck source-path=SCRIPTDIR source=common.sh
. ./common.sh
: "${1:?usage: pgbackrest-archive.sh <WAL file>}"
CONF="$CONFIG_DIR/$FILE_PGBACKREST_CONF"
ERRORS="$RUN_DIR/archive-push.errors"

# This Database's repository, its keys from the credential files (a pod of an earlier pgkeeper:
# from its environment).
repo1() {
  with_store_keys "$FILE_REPO1_S3_KEY" "$FILE_REPO1_S3_KEY_SECRET" \
    "${PGBACKREST_REPO1_S3_KEY:-}" "${PGBACKREST_REPO1_S3_KEY_SECRET:-}" \
    pgbackrest --config="$CONF" --stanza="$STANZA" "$@"
}

push() {
  repo1 archive-push "$1" 2>"$ERRORS"
}

if push "$1"; then
  exit 0
fi
# "unable to load info file '.../archive.info' ... HINT: has a stanza-create been performed?" (2.45:
# error 103 around a FileMissingError): no stanza in this repository yet.
if grep -q 'has a stanza-create been performed' "$ERRORS"; then
  log "No pgBackRest stanza in the repository yet: creating it"
  repo1 stanza-create >&2
  push "$1" && exit 0
fi
cat "$ERRORS" >&2
exit 1
