# shellcheck shell=sh
# The data directories of a major upgrade (ADR 0041), shared by upgrade.sh and the entrypoint.
# The old data directory is never written by the upgrade: the new one is made beside it and
# swapped in by renames, each step visible in a directory name, so a kill at any moment leaves a
# state the next start completes or undoes:
#
#   $PGDATA.upgrade      the new major's cluster being made, or given up: never trusted
#   $PGDATA.upgraded     the new major's cluster, complete: pg_upgrade succeeded
#   $PGDATA.pre-upgrade  the old major's data directory, as it was, kept until the upgrade is
#                        committed (upgrade.sh commit) or rolled back (upgrade.sh rollback)
#   $PGDATA.committed    the old major's data directory being deleted by a commit: never
#                        trusted, so a commit cut short leaves nothing a rollback could take
#   $PGDATA.unfinished   a file, from the upgrade Job's start to its success: while it exists the
#                        new major's data directory never served, and the old major's entrypoint
#                        puts its own data back (the Job failed; the operator runs the old major)
UPGRADING_DIR="$PGDATA.upgrade"
UPGRADED_DIR="$PGDATA.upgraded"
PRE_UPGRADE_DIR="$PGDATA.pre-upgrade"
COMMITTED_DIR="$PGDATA.committed"
UNFINISHED_FILE="$PGDATA.unfinished"

# Completes a swap of data directories that a kill interrupted: forward when the new cluster was
# complete, back to the old data otherwise. Never deletes the old data directory.
# shellcheck disable=SC2317
settle_upgrade_dirs() {
  if [ -d "$UPGRADED_DIR" ]; then
    if [ -e "$PGDATA" ]; then
      log "An upgrade was interrupted after pg_upgrade succeeded; keeping the old data directory as $PRE_UPGRADE_DIR"
      mv "$PGDATA" "$PRE_UPGRADE_DIR"
    fi
    mv "$UPGRADED_DIR" "$PGDATA"
    log "The upgraded data directory is in place"
  elif [ ! -e "$PGDATA" ] && [ -d "$PRE_UPGRADE_DIR" ]; then
    log "A rollback of an upgrade was interrupted; putting the old data directory back"
    mv "$PRE_UPGRADE_DIR" "$PGDATA"
  fi
  if [ -e "$UPGRADING_DIR" ]; then
    log "Removing an unfinished upgrade's copy ($UPGRADING_DIR); the data directory is as it was"
    rm -rf "$UPGRADING_DIR"
  fi
  if [ -e "$COMMITTED_DIR" ]; then
    log "Finishing the deletion of a committed upgrade's old data directory"
    rm -rf "$COMMITTED_DIR"
  fi
}

# Puts the kept old data directory back in place of the new one, which goes.
# shellcheck disable=SC2317
put_back_old_data() {
  mv "$PGDATA" "$UPGRADING_DIR"
  mv "$PRE_UPGRADE_DIR" "$PGDATA"
  rm -rf "$UPGRADING_DIR"
}

# In an instance's entrypoint ($1 its image's major): an upgrade Job that converted the data but
# did not finish (killed after the swap, or failed) leaves the new data directory, which never
# served, and the old one kept. The operator then runs the old major again: its data goes back.
# No other image may start data the Job left unfinished. Without the Job's file, a newer data
# directory has served and is never touched here.
# shellcheck disable=SC2317
roll_back_unfinished_upgrade() {
  [ -e "$UNFINISHED_FILE" ] || return 0
  if [ -d "$PRE_UPGRADE_DIR" ]; then
    _kept=$(cat "$PRE_UPGRADE_DIR/PG_VERSION")
    [ "$_kept" = "$1" ] ||
      end_with_reason "The upgrade from PostgreSQL $_kept did not finish (its Job failed): the data directory beside the kept one never served; refusing to start it with PostgreSQL $1."
    log "The upgrade from PostgreSQL $1 did not finish and its data directory never served; putting PostgreSQL $1's back"
    put_back_old_data
  fi
  rm -f "$UNFINISHED_FILE"
}
