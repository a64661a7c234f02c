#!/bin/sh
# upgrade.sh (FILE_UPGRADE): a major upgrade's steps on the primary's volume (ADR 0041), one
# subcommand per container:
#
#   export-runtime  in the OLD major's image: copies its server programs, the shared libraries
#                   they load (glibc's apart) and its share files into $UPGRADE_DIR/runtime. Each
#                   major's image is built on the Debian release that ships it, so the new image
#                   has neither the old programs nor their libraries (libicu72 beside libicu76).
#   check           in the NEW image, the old primary running (live) or stopped: what can only be
#                   checked with the new programs: the new major is higher, the volume has room
#                   for the copy, the old programs run here, every installed extension exists in
#                   the new image, and `pg_upgrade --check`. Writes nothing on the data volume.
#                   `check live`: the operator's check Job, the primary serving (it must answer).
#   run             in the NEW image, the old primary stopped: the same checks, then pg_upgrade
#                   --copy into a new data directory beside the old one, then the swap. Any failure
#                   before the swap leaves the old data directory as it was and ends the container
#                   with the reason in its termination message.
#   stanza-upgrade  in the NEW image, the new primary running: tells the pgBackRest repository
#                   that the stanza's database is now the new major's (a new system identifier);
#                   until then every WAL push of the new primary is refused. The old major's
#                   backups and WAL stay in the repository, restorable into a new Database.
#   analyze         in the NEW image, the new primary running: the planner's statistics, which
#                   pg_upgrade carries over only from PostgreSQL 18 (vacuumdb then analyzes what
#                   is missing only).
#   rollback        puts the kept old data directory back in place, while the new primary has
#                   taken no write (the operator opens it for writes only after this is moot).
#   commit          deletes the kept old data directory, once the new major has its own backup.
#   job             the operator's upgrade Job (every instance stopped): run, then the planner's
#                   statistics and the stanza while no client can connect yet; a failure after
#                   the swap rolls back, so the Job ends with the data on one major, named.
#
# common.sh, with the layout.sh it sources, comes next: the generator pastes it in place of the
# line that sources it.
# shellcheck source-path=SCRIPTDIR source=common.sh
. ./common.sh
: "${PGDATA:?PGDATA must be set}"
# shellcheck source-path=SCRIPTDIR source=upgrade-dirs.sh
. ./upgrade-dirs.sh
umask 077
RUNTIME="$UPGRADE_DIR/runtime"
# Wrappers that run the exported programs with their own libraries.
OLD_BIN="$UPGRADE_DIR/old-bin"
LOG="$UPGRADE_DIR/pg_upgrade.log"

# glibc's own libraries stay the new image's: a process cannot load two, and glibc runs programs
# built against an older glibc.
is_glibc_library() {
  case "$1" in
  ld-linux* | libc.so.* | libm.so.* | libmvec.so.* | libpthread.so.* | libdl.so.* | librt.so.* | \
    libresolv.so.* | libutil.so.* | libanl.so.* | libnss_* | libBrokenLocale.so.* | \
    libthread_db.so.* | libc_malloc_debug.so.*) return 0 ;;
  esac
  return 1
}

export_runtime() {
  find_pg_bin pg_config
  command -v ldd >/dev/null 2>&1 ||
    end_with_reason "This image has no ldd, so its PostgreSQL programs' libraries cannot be exported for a major upgrade."
  major=$(program_major)
  bindir=$("$PG_BIN/pg_config" --bindir)
  pkglibdir=$("$PG_BIN/pg_config" --pkglibdir)
  work="$RUNTIME.partial"
  rm -rf "$work" "$RUNTIME"
  # Copied to the same paths under the runtime directory: PostgreSQL finds its share and library
  # directories relative to its own program's path.
  for dir in "$bindir" "$pkglibdir" "$("$PG_BIN/pg_config" --sharedir)"; do
    mkdir -p "$work${dir%/*}"
    cp -R "$dir" "$work$dir"
  done
  printf '%s\n' "$bindir" >"$work/bindir"
  mkdir -p "$work/lib"
  for program in "$bindir"/* "$pkglibdir"/*.so; do
    ldd "$program" 2>/dev/null || true
  done | sed -n 's/^[[:space:]]*\([^ ]*\) => \(\/[^ ]*\) .*/\1 \2/p' | sort -u |
    while read -r name file; do
      is_glibc_library "$name" || cp -L "$file" "$work/lib/$name"
    done
  "$PG_BIN/postgres" --version >"$work/version"
  printf '%s\n' "$major" >"$work/major"
  mv "$work" "$RUNTIME"
  log "Exported $(cat "$RUNTIME/version")'s programs for the upgrade ($(du -sk "$RUNTIME" | cut -f1) KiB)"
}

# Sets old_major and new_major, and OLD_BIN's wrappers; ends with the reason when this upgrade
# cannot be: no data, not a rise, the old programs missing or not running here.
prepare() {
  find_pg_bin pg_upgrade
  new_major=$(program_major)
  [ -s "$PGDATA/PG_VERSION" ] || end_with_reason "There is no data directory to upgrade in $PGDATA."
  old_major=$(cat "$PGDATA/PG_VERSION")
  if [ "$old_major" = "$new_major" ]; then
    return 0
  fi
  [ "$old_major" -lt "$new_major" ] ||
    end_with_reason "The data directory is PostgreSQL $old_major's and this image runs PostgreSQL $new_major: a major upgrade only goes up."
  [ -s "$RUNTIME/major" ] ||
    end_with_reason "PostgreSQL $old_major's programs are missing from $RUNTIME: the export from PostgreSQL $old_major's image did not run."
  [ "$(cat "$RUNTIME/major")" = "$old_major" ] ||
    end_with_reason "The exported programs are PostgreSQL $(cat "$RUNTIME/major")'s, but the data directory is PostgreSQL $old_major's."
  rm -rf "$OLD_BIN"
  mkdir -p "$OLD_BIN"
  for program in "$RUNTIME$(cat "$RUNTIME/bindir")"/*; do
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "'$RUNTIME/lib'" "'$program'" \
      >"$OLD_BIN/${program##*/}"
    chmod 0755 "$OLD_BIN/${program##*/}"
  done
  if ! "$OLD_BIN/postgres" --version >"$UPGRADE_DIR/old-version" 2>&1; then
    end_with_reason "PostgreSQL $old_major's exported programs do not run in PostgreSQL $new_major's image: $(head -c 500 "$UPGRADE_DIR/old-version")"
  fi
}

# pg_upgrade --copy writes a copy of every data file beside the old ones. Not pg_wal's segments,
# so the data directory's size plus a tenth is a bound with room to spare.
space_problem() {
  need_kib=$(du -sk "$PGDATA" | cut -f1)
  need_kib=$((need_kib + need_kib / 10))
  # statfs: the blocks available to this user, and their size.
  free_kib=$(stat -f -c '%a %S' "${PGDATA%/*}" | awk '{ printf "%d", $1 * $2 / 1024 }')
  if [ -z "$free_kib" ]; then
    echo "The data volume's free space cannot be read (stat -f ${PGDATA%/*})."
  elif [ "$free_kib" -lt "$need_kib" ]; then
    echo "The data volume has $((free_kib / 1024)) MiB free; an upgrade by copy needs $((need_kib / 1024)) MiB beside the data directory (its size, and a tenth more). Grow spec.storage.size first."
  fi
}

# A live server's socket and port (postmaster.pid's fifth and fourth lines), or nothing.
live_server() {
  [ -f "$PGDATA/postmaster.pid" ] || return 1
  live_port=$(sed -n 4p "$PGDATA/postmaster.pid")
  live_socket=$(sed -n 5p "$PGDATA/postmaster.pid")
  if [ -n "$live_socket" ] && "$PG_BIN/pg_isready" -q -h "$live_socket" -p "$live_port"; then
    return 0
  fi
  live_socket=
  return 1
}

# Query $2 in database $1 of the live server, one value per line.
live_sql() {
  "$PG_BIN/psql" -h "$live_socket" -p "$live_port" -U "$SUPERUSER" -d "$1" -X -A -t -q \
    -v ON_ERROR_STOP=1 -c "$2"
}

# Extensions installed in any database of the live server that the new image does not have.
missing_extensions() {
  extensions="$("$PG_BIN/pg_config" --sharedir)/extension"
  live_sql postgres "SELECT datname FROM pg_database WHERE datallowconn ORDER BY 1" |
    while read -r database; do
      live_sql "$database" "SELECT extname FROM pg_extension ORDER BY 1" | while read -r name; do
        [ -f "$extensions/$name.control" ] || printf '%s (in database %s) ' "$name" "$database"
      done
    done
}

# A rehearsal of the schema in the throwaway cluster $1: the live server's schema as the new
# major's pg_dumpall writes it, restored there. pg_upgrade --check never restores the schema,
# and a schema the new major does not take would otherwise fail the real run, after the primary
# stopped (a build of 17 here keeps an attribute option 18 refuses).
REHEARSAL_PORT=50433
schema_problem() {
  if ! "$PG_BIN/pg_ctl" -D "$1" -w -s -l "$UPGRADE_DIR/rehearsal.log" \
    -o "-c listen_addresses= -c unix_socket_directories=$UPGRADE_DIR -p $REHEARSAL_PORT" start >/dev/null; then
    echo "The rehearsal of the schema could not start PostgreSQL $new_major: $(tail -n 2 "$UPGRADE_DIR/rehearsal.log" | tr '\n' ' ')"
    return 0
  fi
  "$PG_BIN/pg_dumpall" -h "$live_socket" -p "$live_port" -U "$SUPERUSER" --schema-only \
    --no-role-passwords 2>"$UPGRADE_DIR/rehearsal.errors" |
    "$PG_BIN/psql" -h "$UPGRADE_DIR" -p "$REHEARSAL_PORT" -U "$SUPERUSER" -d postgres -X -q \
      >/dev/null 2>>"$UPGRADE_DIR/rehearsal.errors" || true
  "$PG_BIN/pg_ctl" -D "$1" -w -s -m fast stop >/dev/null || true
  # The superuser exists in every new cluster.
  grep -E 'ERROR|error:' "$UPGRADE_DIR/rehearsal.errors" | grep -v "role \"$SUPERUSER\" already exists" \
    >"$UPGRADE_DIR/rehearsal.failures" || true
  if [ -s "$UPGRADE_DIR/rehearsal.failures" ]; then
    echo "The schema does not restore on PostgreSQL $new_major ($(wc -l <"$UPGRADE_DIR/rehearsal.failures") errors in a rehearsal of pg_dumpall --schema-only; the first: $(head -n 1 "$UPGRADE_DIR/rehearsal.failures" | sed 's/^psql:[^ ]* //'))."
  fi
}

# A new, empty cluster of the new major in $1, made as the entrypoint makes a Database's first
# one, with the old one's data checksums and WAL segment size (pg_upgrade requires both to match).
init_new_cluster() {
  rm -rf "$1"
  control=$("$OLD_BIN/pg_controldata" "$PGDATA")
  set -- "$1" "--wal-segsize=$(($(printf '%s\n' "$control" | sed -n 's/^Bytes per WAL segment: *//p') / 1048576))"
  if [ "$(printf '%s\n' "$control" | sed -n 's/^Data page checksum version: *//p')" != 0 ]; then
    set -- "$@" --data-checksums
  elif [ "$new_major" -ge 18 ]; then
    set -- "$@" --no-data-checksums
  fi
  "$PG_BIN/initdb" -D "$@" -U "$SUPERUSER" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C --no-instructions >"$UPGRADE_DIR/initdb.log" 2>&1 ||
    end_with_reason "initdb of PostgreSQL $new_major failed: $(tail -n 3 "$UPGRADE_DIR/initdb.log" | tr '\n' ' ')"
}

# pg_upgrade's own account of a failure: the lines after the check that failed, and the first
# lines of the report file it names.
pg_upgrade_failure() {
  summary=$(sed -n '/fatal$/,/^Failure, exiting/p' "$LOG" | sed '1d;$d' | tr -s ' \n' '  ')
  [ -n "$summary" ] || summary=$(tail -n 5 "$LOG" | tr -s ' \n' '  ')
  report=$(sed -n 's/^ *\(\/.*\.txt\)$/\1/p' "$LOG" | head -n 1)
  if [ -n "$report" ] && [ -f "$report" ]; then
    summary="$summary $(head -n 10 "$report" | tr -s ' \n' '  ')"
  fi
  # A step that failed names its own log, which goes with the abandoned cluster: its errors.
  consult=$(sed -n 's/.*Consult the last few lines of "\([^"]*\)".*/\1/p' "$LOG" | head -n 1)
  if [ -n "$consult" ] && [ -f "$consult" ]; then
    summary="$summary $(grep -E 'ERROR|error:' "$consult" | tail -n 3 | tr -s ' \n' '  ')"
  fi
  printf '%s' "$summary"
}

# pg_upgrade with the old programs, from the scratch directory (it writes its scripts in the
# working directory); its output in $LOG. The old server it starts reads the data directory's own
# configuration, where archiving is off: this Database's archive is of the old system, and its
# last WAL was archived when the primary stopped.
pg_upgrade_with() {
  (cd "$UPGRADE_DIR" && "$PG_BIN/pg_upgrade" -b "$OLD_BIN" -B "$PG_BIN" -d "$PGDATA" -U "$SUPERUSER" \
    -s "$UPGRADE_DIR" -o "-c archive_mode=off" "$@") >"$LOG" 2>&1
}

# `check live` (the operator's check Job, beside the primary): the server must be reached, through
# the socket that postmaster.pid names on the data volume.
check() {
  prepare
  [ "$old_major" != "$new_major" ] ||
    end_with_reason "The data directory already is PostgreSQL $new_major's: there is nothing to upgrade."
  if [ "${1:-}" = live ] && ! live_server; then
    end_with_reason "PostgreSQL $old_major's server cannot be reached through the socket its postmaster.pid names ($(sed -n 5p "$PGDATA/postmaster.pid" 2>/dev/null || echo 'no postmaster.pid')): it is not running, or it started with a configuration from before its socket was on the data volume (its pods roll onto the new configuration by themselves). Nothing was stopped."
  fi
  problems=$(space_problem)
  if live_server; then
    missing=$(missing_extensions)
    [ -z "$missing" ] ||
      problems="$problems Extensions installed here are not in PostgreSQL $new_major's image: ${missing% }. Drop them (DROP EXTENSION) or use an image that has them."
  fi
  init_new_cluster "$UPGRADE_DIR/check-cluster"
  if ! pg_upgrade_with --check -D "$UPGRADE_DIR/check-cluster"; then
    problems="$problems pg_upgrade --check failed: $(pg_upgrade_failure)"
  fi
  if [ -n "${live_socket:-}" ]; then
    problem=$(schema_problem "$UPGRADE_DIR/check-cluster")
    [ -z "$problem" ] || problems="$problems $problem"
  fi
  cat "$LOG" >&2
  rm -rf "$UPGRADE_DIR/check-cluster"
  [ -z "$problems" ] ||
    end_with_reason "The upgrade from PostgreSQL $old_major to $new_major cannot run:$problems"
  write_reason "The upgrade from PostgreSQL $old_major to $new_major can run."
  log "The upgrade from PostgreSQL $old_major to $new_major can run"
}

# Stops a server left running on data directory $1 by a pg_upgrade that died: its postmaster
# would otherwise keep the old data directory open, or write in the copy being removed.
stop_server_of() {
  pid=$(head -n 1 "$1/postmaster.pid" 2>/dev/null || true)
  [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null; do sleep 1; done
}

# pg_upgrade needs a cleanly shut down old cluster. A primary that crashed is recovered by its own
# major's server in single-user mode, which shuts down with a checkpoint.
ensure_clean_shutdown() {
  state=$("$OLD_BIN/pg_controldata" "$PGDATA" | sed -n 's/^Database cluster state: *//p')
  case "$state" in
  "shut down") ;;
  "in production" | "in crash recovery")
    log "PostgreSQL $old_major did not shut down cleanly ($state); recovering it in single-user mode first"
    rm -f "$PGDATA/postmaster.pid"
    "$OLD_BIN/postgres" --single -D "$PGDATA" -c archive_mode=off "$SUPERUSER" </dev/null >&2 ||
      end_with_reason "PostgreSQL $old_major could not recover the data directory before the upgrade."
    ;;
  *)
    end_with_reason "The data directory's state is \"$state\": only a primary's data directory, shut down, is upgraded."
    ;;
  esac
}

run() {
  settle_upgrade_dirs
  prepare
  if [ "$old_major" = "$new_major" ]; then
    log "The data directory is PostgreSQL $new_major's already"
    return 0
  fi
  [ ! -e "$PRE_UPGRADE_DIR" ] ||
    end_with_reason "An earlier upgrade's old data directory is still kept in $PRE_UPGRADE_DIR: commit or roll back that upgrade first."
  problem=$(space_problem)
  [ -z "$problem" ] || end_with_reason "The upgrade from PostgreSQL $old_major to $new_major cannot run: $problem"
  ensure_clean_shutdown
  started=$(date +%s)
  log "Upgrading from PostgreSQL $old_major to $new_major by copy, beside the old data directory"
  init_new_cluster "$UPGRADING_DIR"
  if ! pg_upgrade_with --copy -D "$UPGRADING_DIR"; then
    cat "$LOG" >&2
    stop_server_of "$PGDATA"
    stop_server_of "$UPGRADING_DIR"
    reason=$(pg_upgrade_failure)
    rm -rf "$UPGRADING_DIR"
    end_with_reason "pg_upgrade from PostgreSQL $old_major to $new_major failed, and PostgreSQL $old_major's data directory is as it was: $reason"
  fi
  cat "$LOG" >&2
  # The managed parameters as this Database's configuration renders them for the new major (the
  # old postgresql.auto.conf may name parameters the new major dropped).
  cp "$CONFIG_DIR/$FILE_MANAGED_CONF" "$UPGRADING_DIR/postgresql.auto.conf"
  mv "$UPGRADING_DIR" "$UPGRADED_DIR"
  settle_upgrade_dirs
  done_in="Upgraded from PostgreSQL $old_major to $new_major in $(($(date +%s) - started)) s"
  write_reason "$done_in."
  log "$done_in; the old data directory is kept in $PRE_UPGRADE_DIR"
}

stanza_upgrade() {
  if ! with_store_keys "$FILE_REPO1_S3_KEY" "$FILE_REPO1_S3_KEY_SECRET" "" "" \
    pgbackrest --config="$CONFIG_DIR/$FILE_PGBACKREST_CONF" --stanza="$STANZA" \
    --pg1-path="$PGDATA" stanza-upgrade 2>"$UPGRADE_DIR/stanza-upgrade.errors"; then
    cat "$UPGRADE_DIR/stanza-upgrade.errors" >&2
    end_with_reason "pgbackrest stanza-upgrade failed: $(grep -m 1 ERROR "$UPGRADE_DIR/stanza-upgrade.errors" || tail -n 1 "$UPGRADE_DIR/stanza-upgrade.errors")"
  fi
  write_reason "The repository's stanza is PostgreSQL $(cat "$PGDATA/PG_VERSION")'s."
}

analyze() {
  find_pg_bin vacuumdb
  set -- --all --analyze-in-stages
  [ "$(program_major)" -lt 18 ] || set -- "$@" --missing-stats-only
  "$PG_BIN/vacuumdb" -h "${PGHOST:-$RUN_DIR}" -p "${PGPORT:-$PORT}" -U "$SUPERUSER" "$@" >&2 ||
    end_with_reason "vacuumdb $* failed after the upgrade: the statistics are incomplete, the data is not affected."
}

# The statistics of the new cluster before any client connects (the Job's private server: no
# network, archiving off; this WAL precedes the new major's first backup, which every restore of
# the new major starts from). pg_upgrade carries statistics over only from PostgreSQL 18.
ANALYZE_PORT=50434
analyze_before_opening() {
  find_pg_bin vacuumdb
  "$PG_BIN/pg_ctl" -D "$PGDATA" -w -s -l "$UPGRADE_DIR/analyze-server.log" -o \
    "-c listen_addresses= -c unix_socket_directories=$UPGRADE_DIR -p $ANALYZE_PORT -c archive_mode=off" \
    start >/dev/null || return 1
  set -- --all --analyze-only
  [ "$(program_major)" -lt 18 ] || set -- "$@" --missing-stats-only
  analyzed=0
  "$PG_BIN/vacuumdb" -h "$UPGRADE_DIR" -p "$ANALYZE_PORT" -U "$SUPERUSER" "$@" >&2 || analyzed=1
  "$PG_BIN/pg_ctl" -D "$PGDATA" -w -s -m fast stop >/dev/null || analyzed=1
  return "$analyzed"
}

# Ends the Job after the swap: the old data directory back in place, and the reason.
roll_back_because() {
  log "$1; rolling back to PostgreSQL $old_major's data directory"
  stop_server_of "$PGDATA"
  rollback
  rm -f "$UNFINISHED_FILE"
  end_with_reason "$1. PostgreSQL $old_major's data directory is back in place, as it was."
}

# The upgrade Job. Its file ($UNFINISHED_FILE) lasts until it succeeded: a Job killed after the
# swap leaves the new data directory unserved, which the old major's entrypoint rolls back. A
# rerun finds the swap settled by run and repeats the steps after it, each of which may run twice.
upgrade_job() {
  : >"$UNFINISHED_FILE"
  run
  [ -d "$PRE_UPGRADE_DIR" ] ||
    end_with_reason "The data directory is PostgreSQL $new_major's and no old one is kept: there is nothing to finish."
  old_major=$(cat "$PRE_UPGRADE_DIR/PG_VERSION")
  analyze_before_opening ||
    roll_back_because "The statistics of PostgreSQL $new_major could not be gathered ($(tail -n 2 "$UPGRADE_DIR/analyze-server.log" 2>/dev/null | tr '\n' ' '))"
  if [ -f "$CONFIG_DIR/$FILE_PGBACKREST_CONF" ]; then
    with_store_keys "$FILE_REPO1_S3_KEY" "$FILE_REPO1_S3_KEY_SECRET" "" "" \
      pgbackrest --config="$CONFIG_DIR/$FILE_PGBACKREST_CONF" --stanza="$STANZA" \
      --pg1-path="$PGDATA" --no-online stanza-upgrade 2>"$UPGRADE_DIR/stanza-upgrade.errors" ||
      roll_back_because "pgbackrest stanza-upgrade failed: $(grep -m 1 ERROR "$UPGRADE_DIR/stanza-upgrade.errors" || tail -n 1 "$UPGRADE_DIR/stanza-upgrade.errors")"
  fi
  rm -f "$UNFINISHED_FILE"
  write_reason "Upgraded from PostgreSQL $old_major to $new_major; the old data directory is kept until the upgrade is committed."
}

rollback() {
  settle_upgrade_dirs
  [ -d "$PRE_UPGRADE_DIR" ] || end_with_reason "There is no old data directory to roll back to."
  log "Rolling back: PostgreSQL $(cat "$PRE_UPGRADE_DIR/PG_VERSION")'s data directory goes back in place"
  put_back_old_data
}

commit() {
  settle_upgrade_dirs
  if [ -d "$PRE_UPGRADE_DIR" ]; then
    log "Deleting PostgreSQL $(cat "$PRE_UPGRADE_DIR/PG_VERSION")'s data directory, kept since the upgrade"
    # Renamed first: a deletion cut short must never leave a part of it to roll back to.
    mv "$PRE_UPGRADE_DIR" "$COMMITTED_DIR"
    rm -rf "$COMMITTED_DIR"
  fi
}

case "${1:-}" in
export-runtime) export_runtime ;;
check) check "${2:-}" ;;
run) run ;;
stanza-upgrade) stanza_upgrade ;;
analyze) analyze ;;
rollback) rollback ;;
commit) commit ;;
job) upgrade_job ;;
*)
  log "usage: upgrade.sh export-runtime|check [live]|run|stanza-upgrade|analyze|rollback|commit|job"
  exit 2
  ;;
esac
