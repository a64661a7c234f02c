#!/bin/sh
# entrypoint.sh: the command of every instance container. It decides how this pod gets a data
# directory, then execs postgres in the foreground (PID 1, so the kubelet's signals reach it):
#
# - PGDATA initialised (PG_VERSION present): start as it is (standby.signal or not), except
#   when it was a primary and /topology/primary names another instance: a failover or
#   switchover happened while it was away. It then waits for that primary, rewinds onto its
#   timeline with pg_rewind (re-clones when that fails) and starts as a standby, so a returning
#   primary never accepts writes next to the new one. Promotion is the operator's call only; so
#   is cancelling a failover before any promotion, which names this instance again while it
#   waits: it then starts as the primary it was. Likewise a standby in which the operator left
#   the repair marker (it ran but could not follow its primary): rewound onto the primary's
#   timeline, or cloned again when there was nothing to rewind.
# - empty, ordinal 0, not told another instance is primary, no server answering (neither on
#   `<db>-rw` nor on another pod), and the Database never held data (/topology/initialized
#   absent): first boot of the Database. initdb, bootstrap.sql in single-user mode (the `app`
#   role and database, pgkeeper's roles), the managed parameters as postgresql.auto.conf, start.
#   A Database created from a backup (bootstrap.recovery) restores it instead, replays the
#   source's archive to the target, promotes and runs recovery.sql, all beside PGDATA; it never
#   runs initdb, and a restore that fails ends the container with the reason in its termination
#   message, for the operator to report.
# - empty otherwise: clone the primary through `<db>-rw` with pg_basebackup and start as a
#   standby. Pod 0 clones too when another instance's server answers, so a pod 0 whose volume was
#   lost can never initdb a second, empty primary.
#
# initdb and pg_basebackup write into a sibling directory that is renamed into place only when
# complete: a pod killed halfway leaves no half-made PGDATA that the next start would trust. An
# interrupted pg_rewind is marked the same way (and answered with a clone), and a standby that
# failed to start three times in a row (a timeline it cannot follow) is cloned again. A re-clone
# deletes the old data only after the new copy is complete.
#
# No SQL is written here: it is in the .sql files beside this one, which the ConfigMap ships and
# PostgreSQL reads as they are (postgres --single from stdin, psql -f). A password they set goes
# into a file PostgreSQL reads (pg_read_file), never into SQL text or onto a command line, so no
# value passes through a quoting layer on its way.
#
# common.sh, with the layout.sh it sources, comes next: the generator pastes it in place of the
# line that sources it.
# shellcheck source-path=SCRIPTDIR source=common.sh
. ./common.sh
: "${PGDATA:?PGDATA must be set}"
# shellcheck source-path=SCRIPTDIR source=upgrade-dirs.sh
. ./upgrade-dirs.sh
: "${pod_name:?$ENV_POD_NAME must be set}"
: "${primary_host:?$ENV_PRIMARY_HOST must be set}"
# Shell variables, never exported: postgres and what it runs do not inherit them.
superuser_password=$(credential "$FILE_SUPERUSER_PASSWORD" "$superuser_password")
app_password=$(credential "$FILE_APP_PASSWORD" "$app_password")
: "${superuser_password:?$CREDENTIALS_DIR/$FILE_SUPERUSER_PASSWORD must be set}"
umask 077
find_pg_bin postgres
# The instance the operator wants as primary; empty before the operator wrote it.
designated_primary=$(cat "$TOPOLOGY_DIR/$FILE_PRIMARY" 2>/dev/null || true)

# initdb and postgres refuse to run under a uid without a user name (an image whose postgres
# user is not uid 999, or OpenShift's random uids): give it one with nss_wrapper when installed.
ensure_user_name() {
  if id -un >/dev/null 2>&1; then
    return 0
  fi
  for lib in /usr/lib/*/libnss_wrapper.so /usr/lib/libnss_wrapper.so /usr/lib64/libnss_wrapper.so; do
    if [ -e "$lib" ]; then
      printf '%s:x:%s:%s:PostgreSQL:%s:/bin/sh\n' "$SUPERUSER" "$(id -u)" "$(id -g)" "${PGDATA%/*}" >"$RUN_DIR/passwd"
      printf '%s:x:%s:\n' "$SUPERUSER" "$(id -g)" >"$RUN_DIR/group"
      export LD_PRELOAD="$lib" NSS_WRAPPER_PASSWD="$RUN_DIR/passwd" NSS_WRAPPER_GROUP="$RUN_DIR/group"
      return 0
    fi
  done
  log "uid $(id -u) has no user name and nss_wrapper is not installed; PostgreSQL will refuse to start"
}

# The primary through <db>-rw, as streaming_replica with its certificate.
primary_dsn() {
  printf 'host=%s port=%s dbname=%s %s connect_timeout=5' "$primary_host" "$PORT" "$1" "$PRIMARY_TLS_KEYWORDS"
}

# Included by postgresql.conf. A primary ignores primary_conninfo, so every instance gets it and
# a demoted primary only needs standby.signal. Through <db>-rw it follows failovers by itself;
# application_name (the pod name) is what pg_stat_replication and synchronous replication see.
write_instance_conf() {
  # shellcheck disable=SC2059 # the format is specs/postgresql-conf.ts's replicationConninfo
  printf "primary_conninfo = '$REPLICATION_CONNINFO_FORMAT'\n" \
    "$primary_host" "$PORT" "$pod_name" >"$RUN_DIR/$FILE_INSTANCE_CONF"
}

# The operator keeps primary_conninfo in postgresql.auto.conf naming the primary it last saw (so a
# change of primary reconnects the WAL receiver at once). Whatever is there at a start may be
# stale: copied from the source by pg_basebackup or pg_rewind (another instance's name), or
# written before a failover this instance missed. Until the operator writes it again, the
# instance follows <db>-rw from instance.conf, which is always right.
forget_named_primary() {
  auto="$PGDATA/postgresql.auto.conf"
  if [ -f "$auto" ] && grep -q '^primary_conninfo' "$auto"; then
    grep -v '^primary_conninfo' "$auto" >"$auto.tmp" || true
    mv "$auto.tmp" "$auto"
  fi
}

initialized() {
  [ -s "$PGDATA/PG_VERSION" ]
}

# True when something answers on <db>-rw (accepting or rejecting connections).
primary_answers() {
  "$PG_BIN/pg_isready" -q -h "$primary_host" -p "$PORT" -t 3 && return 0
  [ $? -eq 1 ]
}

# True when a server answers (accepting or rejecting connections) on an address of the headless
# Service (which publishes pods that are not ready too) other than this pod's: another instance
# holds data. At a first boot the other pods, created at the same time, are still waiting to
# clone with no server up; a pod 0 whose volume was lost finds its peers' servers instead.
peer_server_answers() {
  command -v getent >/dev/null 2>&1 || return 1
  getent ahosts "$headless_service" 2>/dev/null | (
    while read -r ip _rest; do
      [ "$ip" = "$pod_ip" ] && continue
      answer=0
      "$PG_BIN/pg_isready" -q -h "$ip" -p "$PORT" -t 3 </dev/null || answer=$?
      if [ "$answer" -le 1 ]; then exit 0; fi
    done
    exit 1
  )
}

# True when /topology/primary (re-read: the kubelet refreshes the mounted ConfigMap) names this
# instance. The operator names a former primary again when it cancels a failover before any
# promotion: nobody else took its place, and it holds every acknowledged write.
named_primary_again() {
  [ "$(cat "$TOPOLOGY_DIR/$FILE_PRIMARY" 2>/dev/null || true)" = "$pod_name" ]
}

# PGDATA must be absent or empty before a bootstrap or a clone: anything else is a data directory
# we do not understand, and deleting it is not this script's call.
prepare_empty_pgdata() {
  if [ -d "$PGDATA" ]; then
    if [ -n "$(ls -A "$PGDATA")" ]; then
      log "$PGDATA is not empty but has no PG_VERSION; refusing to overwrite it"
      exit 1
    fi
    rmdir "$PGDATA"
  fi
}

bootstrap_primary() {
  : "${app_password:?$CREDENTIALS_DIR/$FILE_APP_PASSWORD must be set}"
  work="$PGDATA.init"
  rm -rf "$work"
  log "Initialising a new database cluster"
  printf '%s\n' "$superuser_password" >"$RUN_DIR/initdb.pw"
  "$PG_BIN/initdb" -D "$work" -U "$SUPERUSER" --pwfile="$RUN_DIR/initdb.pw" \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C --data-checksums \
    --no-instructions
  rm -f "$RUN_DIR/initdb.pw"
  # Single-user mode: no server, no socket, nothing can connect before the roles exist. It reads
  # bootstrap.sql one statement per line; the app password is the file the setting
  # pgkeeper.app_password_file names. exit_on_error turns an SQL error into a non-zero exit;
  # log_min_error_statement keeps statements out of the log.
  printf '%s' "$app_password" >"$RUN_DIR/app.pw"
  "$PG_BIN/postgres" --single -D "$work" -c exit_on_error=on -c log_min_error_statement=panic \
    -c pgkeeper.app_password_file="$RUN_DIR/app.pw" postgres <"$CONFIG_DIR/$FILE_BOOTSTRAP_SQL" >/dev/null
  rm -f "$RUN_DIR/app.pw"
  cp "$CONFIG_DIR/$FILE_MANAGED_CONF" "$work/postgresql.auto.conf"
  mv "$work" "$PGDATA"
  log "Initialised the database cluster"
}

fail_recovery() {
  log "Recovery failed: $*"
  write_reason "$*"
  exit 1
}

# Refuses, before anything is written, to run the server programs of another major than the
# Database's (spec.version, $PG_MAJOR) or to start a data directory another major wrote: a tag
# can name one major and hold another, and postgres's own refusal is one line in a log, restarted
# forever. The operator shows the reason (status.instances[].startRefused, an Event).
check_major() {
  image_major=$(program_major)
  image_version=$("$PG_BIN/postgres" --version)
  if [ -n "$pg_major" ] && [ "$image_major" != "$pg_major" ]; then
    end_with_reason "The image runs PostgreSQL $image_major ($image_version) but the Database's version is $pg_major: refusing to start. Set spec.image to an image of PostgreSQL $pg_major."
  fi
  if initialized && [ "$(cat "$PGDATA/PG_VERSION")" != "$image_major" ]; then
    if older_standby_data; then
      return 0
    fi
    end_with_reason "The data directory was written by PostgreSQL $(cat "$PGDATA/PG_VERSION") and the image runs PostgreSQL $image_major ($image_version): refusing to start it. A major upgrade must convert the data first."
  fi
}

# After a major upgrade of the primary (upgrade.sh), another instance's data is the old major's:
# a copy the upgraded primary holds too. It is cloned again from the primary, and replaced only
# once the clone is complete, when (and only when) this instance is not the one the topology names
# primary and the writable primary on <db>-rw runs this image's major: a clone of any other major
# would be refused at the next start, and copied again forever.
older_standby_data() {
  [ "$(cat "$PGDATA/PG_VERSION")" -lt "$image_major" ] || return 1
  [ -n "$designated_primary" ] && [ "$designated_primary" != "$pod_name" ] || return 1
  find_pg_bin psql
  until primary_is_writable; do
    log "Waiting for the primary on $primary_host: this instance's data is PostgreSQL $(cat "$PGDATA/PG_VERSION")'s, and it clones the upgraded primary"
    sleep 2
  done
  primary_major=$(primary_sql "SELECT current_setting('server_version_num')::int / 10000" || true)
  if [ "$primary_major" != "$image_major" ]; then
    log "The primary runs PostgreSQL $primary_major, not $image_major: not cloning it"
    return 1
  fi
  log "This instance's data is PostgreSQL $(cat "$PGDATA/PG_VERSION")'s and the primary runs $image_major: cloning it again"
  reclone
}

# The source repository's pgBackRest, with the source's keys as repository 1's.
source_pgbackrest() {
  with_store_keys "$FILE_SOURCE_S3_KEY" "$FILE_SOURCE_S3_KEY_SECRET" \
    "$source_s3_key" "$source_s3_key_secret" \
    pgbackrest --config="$CONFIG_DIR/$FILE_RECOVERY_CONF" --stanza="$STANZA" "$@"
}

local_sql() {
  "$PG_BIN/psql" -h "${PGHOST:-$RUN_DIR}" -p "${PGPORT:-$PORT}" -U "$SUPERUSER" -d postgres \
    -X -A -t -q -v ON_ERROR_STOP=1 "$@"
}

# bootstrap.recovery: the base backup restored into $work, the source's WAL replayed to the
# target by a server that listens on no address (nothing connects to it, the operator sees no
# primary yet), promoted there on a new timeline, shut down cleanly, and only then moved into
# place. A failure at any point leaves no PGDATA: the next start begins again, never with initdb.
bootstrap_from_backup() {
  : "${app_password:?$CREDENTIALS_DIR/$FILE_APP_PASSWORD must be set}"
  work="$PGDATA.restore"
  rm -rf "$work"
  log "Restoring a base backup from the source repository"
  set --
  while IFS= read -r option; do
    [ -n "$option" ] && set -- "$@" "$option"
  done <"$CONFIG_DIR/$FILE_RECOVERY_OPTIONS"
  if ! source_pgbackrest restore --pg1-path="$work" "$@" \
    --recovery-option="restore_command=/bin/sh $CONFIG_DIR/$FILE_RESTORE_WAL %f \"%p\"" \
    2>"$RUN_DIR/restore.errors"; then
    cat "$RUN_DIR/restore.errors" >&2
    fail_recovery "pgBackRest could not restore from the source repository: $(grep -m 1 'ERROR' "$RUN_DIR/restore.errors" || tail -n 1 "$RUN_DIR/restore.errors")"
  fi
  # This Database's managed parameters, then pgBackRest's recovery settings (the source's own
  # postgresql.auto.conf names the source's parameters and primary).
  grep -E '^(restore_command|recovery_target)' "$work/postgresql.auto.conf" >"$RUN_DIR/recovery.conf" || true
  cp "$CONFIG_DIR/$FILE_MANAGED_CONF" "$work/postgresql.auto.conf"
  cat "$RUN_DIR/recovery.conf" >>"$work/postgresql.auto.conf"
  rm -f "$work/standby.signal"
  chmod 0700 "$work"

  log "Replaying the source's WAL archive"
  : >"$RUN_DIR/recovery.log"
  tail -n +1 -f "$RUN_DIR/recovery.log" >&2 &
  tail_pid=$!
  # pgBackRest's pg1-path is the restored directory for restore_command and for this Database's
  # own archive_command, which archives the new timeline from its first file.
  PGBACKREST_PG1_PATH="$work" "$PG_BIN/postgres" -D "$work" \
    -c config_file="$CONFIG_DIR/$FILE_POSTGRESQL_CONF" -c listen_addresses= \
    >>"$RUN_DIR/recovery.log" 2>&1 &
  server_pid=$!
  promoted=
  while kill -0 "$server_pid" 2>/dev/null; do
    if [ "$(local_sql -c 'SELECT NOT pg_is_in_recovery()' 2>/dev/null || true)" = t ]; then
      promoted=yes
      break
    fi
    sleep 1
  done
  if [ -z "$promoted" ]; then
    wait "$server_pid" || true
    kill "$tail_pid" 2>/dev/null || true
    fail_recovery "PostgreSQL stopped while recovering: $(grep -E 'FATAL|PANIC' "$RUN_DIR/recovery.log" | tail -n 2 | tr '\n' ' ')"
  fi
  log "Recovered and promoted on timeline $(local_sql -c "SELECT timeline_id FROM pg_control_checkpoint()")"
  # This Database's passwords, not the source's (the files the psql variables name), its app role
  # and database, pgkeeper's roles.
  printf '%s' "$superuser_password" >"$RUN_DIR/superuser.pw"
  printf '%s' "$app_password" >"$RUN_DIR/app.pw"
  local_sql -v superuser_password_file="$RUN_DIR/superuser.pw" -v app_password_file="$RUN_DIR/app.pw" \
    -f "$CONFIG_DIR/$FILE_RECOVERY_SQL"
  rm -f "$RUN_DIR/superuser.pw" "$RUN_DIR/app.pw"
  kill -INT "$server_pid"
  wait "$server_pid" || true
  kill "$tail_pid" 2>/dev/null || true
  # Recovery is over: the target and the source's restore_command must never apply again (a
  # standby with recovery_target_time set would stop following its primary there).
  grep -v -E '^(restore_command|recovery_target)' "$work/postgresql.auto.conf" >"$RUN_DIR/auto.conf" || true
  cp "$RUN_DIR/auto.conf" "$work/postgresql.auto.conf"
  mv "$work" "$PGDATA"
  log "Restored the database cluster from the backup"
}

# A complete clone of the primary in $work (with standby.signal), or a failure; a partial copy
# never survives the next attempt.
# --no-clean keeps a failed attempt's copy until clone_until_done has measured it.
clone_once() {
  rm -rf "$work"
  "$PG_BIN/pg_basebackup" -D "$work" -d "$(primary_dsn replication)" -w \
    -X stream -c fast --no-clean || return 1
  touch "$work/standby.signal"
}

# A failed attempt that copied less than this (a refused or lost connection before any data
# file, which leaves a few KiB at most) cost the primary nothing.
CLONE_COSTLY_KIB=16384
CLONE_RETRY_SECONDS=5
CLONE_BACKOFF_MAX_SECONDS=300

# Seconds to wait after the n-th failed attempt in a row that copied data: 5, 10, 20 ... 300.
clone_backoff_seconds() {
  delay=$CLONE_RETRY_SECONDS
  i=1
  while [ "$i" -lt "$1" ] && [ "$delay" -lt "$CLONE_BACKOFF_MAX_SECONDS" ]; do
    delay=$((delay * 2)) i=$((i + 1))
  done
  echo $((delay < CLONE_BACKOFF_MAX_SECONDS ? delay : CLONE_BACKOFF_MAX_SECONDS))
}

# Clones until a complete copy is in $work. Waits for a primary as long as it takes. An attempt
# that failed before copying data is retried in 5 s: it cost nothing, and a standby should follow
# a new primary at once. One that copied data read it from the primary's disks and sent it over
# the network, and the next attempt copies everything again: those back off, doubling up to five
# minutes, so a clone that keeps failing late (a volume too small, a primary restarting mid-copy)
# does not load the primary with a full copy every few seconds. The count of such attempts is kept
# beside PGDATA, so a restarted container goes on backing off.
clone_until_done() {
  work="$PGDATA.clone"
  log "Cloning the primary through $primary_host"
  until clone_once; do
    copied=$(du -sk "$work" 2>/dev/null | cut -f1)
    rm -rf "$work"
    if [ "${copied:-0}" -ge "$CLONE_COSTLY_KIB" ]; then
      n=$(($(cat "$PGDATA.clone-failures" 2>/dev/null || echo 0) + 1))
      echo "$n" >"$PGDATA.clone-failures"
      delay=$(clone_backoff_seconds "$n")
      log "Clone failed after copying ${copied} KiB (attempt $n in a row to fail after copying data); retrying in $delay seconds, since each attempt copies the whole primary again"
    else
      delay=$CLONE_RETRY_SECONDS
      log "Clone failed before copying data; retrying in $delay seconds"
    fi
    sleep "$delay"
  done
  rm -f "$PGDATA.clone-failures"
  log "Cloned the primary"
}

clone_from_primary() {
  clone_until_done
  mv "$work" "$PGDATA"
}

primary_sql() {
  "$PG_BIN/psql" -d "$(primary_dsn postgres)" -w -XAtq -c "$1" 2>/dev/null
}

# True when <db>-rw leads to a server out of recovery: the primary to follow.
primary_is_writable() {
  [ "$(primary_sql 'SELECT NOT pg_is_in_recovery()')" = t ]
}

# pg_rewind (PostgreSQL 15 and older) reads the source's timeline from its control file, which a
# just-promoted primary updates only at its first checkpoint after promotion; that checkpoint is
# spread over minutes. Until then pg_rewind sees one timeline, answers "no rewind required",
# and this instance then cannot follow the new timeline ("forked off ... before current recovery
# point") until it is cloned again. A checkpoint on the primary first makes the timeline visible.
checkpoint_primary() {
  primary_sql "SELECT $CHECKPOINT_FUNCTION" >/dev/null
}

# Waits for a writable primary and checkpoints it. Fails when, meanwhile, the topology names this
# instance the primary: the operator cancelled a failover before any promotion.
wait_for_writable_primary() {
  until primary_is_writable && checkpoint_primary; do
    if named_primary_again; then
      log "The failover was cancelled before any promotion; this instance is the primary again"
      return 1
    fi
    log "Waiting for the primary on $primary_host"
    sleep 2
  done
}

# A former primary whose place was taken: its WAL may have diverged after the last record the
# new primary received, so rewind onto the new timeline (crash recovery first if it died). When
# pg_rewind cannot (WAL gone from the new primary), clone again: the changes only this instance
# had were never acknowledged in synchronous mode, and the new primary's history wins.
rejoin_as_standby() {
  log "$designated_primary is the primary now; this former primary rejoins as its standby"
  find_pg_bin psql
  wait_for_writable_primary || return 0
  rewind_onto_primary keep
}

# Rewinds PGDATA onto the primary's timeline with pg_rewind and makes it a standby. When pg_rewind
# fails (the WAL it needs gone from the primary), or when $1 is "clone" and there was nothing to
# rewind (a standby that could not follow for another reason: the WAL it needs next was removed),
# clones the primary instead. Whatever diverged was never acknowledged in synchronous mode: the
# primary's history wins.
rewind_onto_primary() {
  find_pg_bin pg_rewind
  # A postmaster killed outright (SIGKILL, a node lost) leaves its lock file, naming its PID: 1
  # in its container. In this new container PID 1 is alive (this script), so the single-user
  # crash recovery pg_rewind runs first would take the file for a running server and refuse.
  # Nothing else can use this data directory now: the pod that ran it is gone (the StatefulSet
  # never runs two pods of one name), and this container starts postgres only below.
  rm -f "$PGDATA/postmaster.pid"
  # A pg_rewind cut short leaves a data directory no later start may trust: the marker says so.
  touch "$PGDATA.rewinding"
  # A standby killed outright needs crash recovery first, which pg_rewind runs in single-user
  # mode, and single-user mode refuses standby mode. It is made a standby again below.
  rm -f "$PGDATA/standby.signal"
  rewound=0
  "$PG_BIN/pg_rewind" --target-pgdata="$PGDATA" --config-file="$CONFIG_DIR/$FILE_POSTGRESQL_CONF" \
    --source-server="$(primary_dsn postgres)" \
    --progress >"$RUN_DIR/rewind.log" 2>&1 || rewound=$?
  # Bounded: pg_rewind prints a few progress lines per run.
  cat "$RUN_DIR/rewind.log" >&2
  if [ "$rewound" -ne 0 ]; then
    log "pg_rewind failed; cloning the primary instead"
    reclone
  elif [ "$1" = clone ] && grep -q "no rewind required" "$RUN_DIR/rewind.log"; then
    log "Nothing to rewind: this standby cannot follow for another reason; cloning the primary again"
    reclone
  else
    touch "$PGDATA/standby.signal"
    rm -f "$PGDATA.rewinding"
    log "Rewound onto the primary's timeline"
  fi
}

# The operator left the repair marker (over SQL) in a standby that ran but could not follow its
# primary, then restarted it: rewind it onto the primary's timeline, or clone it again.
repair_standby() {
  log "The operator found this standby unable to follow the primary; repairing it"
  find_pg_bin psql
  wait_for_writable_primary || return 0
  rm -f "$PGDATA/$FILE_REPAIR_MARKER"
  rewind_onto_primary clone
}

# Replaces this instance's data with a fresh clone of the primary: only ever for a standby (or a
# former primary another instance replaced), whose data the primary has too. The clone is made
# beside the old data directory, which is swapped out only once its replacement is complete: an
# unreachable primary, a full volume or a kill at any moment never leaves the instance with less
# than it had. (A kill between the two renames is undone at the next start.)
reclone() {
  clone_until_done
  rm -rf "$PGDATA.old"
  mv "$PGDATA" "$PGDATA.old"
  mv "$work" "$PGDATA"
  rm -rf "$PGDATA.old"
  rm -f "$PGDATA.rewinding" "$PGDATA.failed-starts"
}

# A standby that failed to start several times in a row (e.g. a timeline it cannot follow) heals
# by cloning again. probe.sh (the startup probe) resets the count once the server accepts
# connections.
FAILED_STARTS_LIMIT=3
count_start() {
  n=$(cat "$PGDATA.failed-starts" 2>/dev/null || echo 0)
  echo $((n + 1)) >"$PGDATA.failed-starts"
  [ "$n" -lt "$FAILED_STARTS_LIMIT" ]
}

# The server's socket directory on the data volume (layout.ts says why). The files a killed server
# left there go: one pod at a time runs PostgreSQL on this volume (PGDATA's postmaster.pid guards
# the data), and a stale lock file could name a process alive in this pod.
prepare_volume_socket_dir() {
  dir="${PGDATA%/*}/$VOLUME_SOCKET_SUBDIR"
  mkdir -p "$dir"
  chmod 0700 "$dir"
  rm -f "$dir"/.s.PGSQL.*
}

ensure_user_name
write_instance_conf
prepare_volume_socket_dir
if [ ! -e "$PGDATA" ] && [ -s "$PGDATA.old/PG_VERSION" ]; then
  log "A re-clone was interrupted while swapping data directories; keeping the previous one"
  mv "$PGDATA.old" "$PGDATA"
fi
settle_upgrade_dirs
roll_back_unfinished_upgrade "$(program_major)"
check_major
if ! initialized; then
  prepare_empty_pgdata
  ordinal=${pod_name##*-}
  if [ -f "$TOPOLOGY_DIR/$FILE_INITIALIZED" ]; then
    log "This Database has held data since $(cat "$TOPOLOGY_DIR/$FILE_INITIALIZED"): an instance without data clones a primary and never initialises an empty one"
    clone_from_primary
  elif [ "$ordinal" = 0 ] && { [ -z "$designated_primary" ] || [ "$designated_primary" = "$pod_name" ]; } &&
    ! primary_answers && ! peer_server_answers; then
    if [ -f "$CONFIG_DIR/$FILE_RECOVERY_OPTIONS" ]; then
      bootstrap_from_backup
    else
      bootstrap_primary
    fi
  else
    clone_from_primary
  fi
elif [ -f "$PGDATA.rewinding" ]; then
  log "A previous pg_rewind did not finish; cloning the primary instead"
  find_pg_bin psql
  reclone
elif [ -f "$PGDATA/$FILE_REPAIR_MARKER" ]; then
  repair_standby
elif [ -n "$designated_primary" ] && [ "$designated_primary" != "$pod_name" ] &&
  [ ! -f "$PGDATA/standby.signal" ]; then
  rejoin_as_standby
elif [ -f "$PGDATA/standby.signal" ] && ! count_start; then
  log "This standby failed to start $FAILED_STARTS_LIMIT times in a row; cloning the primary again"
  reclone
fi
forget_named_primary
# The kubelet's fsGroup handling can add group permissions; postgres refuses to start with them.
chmod 0700 "$PGDATA"
# Whether this image can archive: the archive_command and backups run pgBackRest. PostgreSQL
# carries the answer as a setting of its own, which the operator's probe reads over SQL, so an
# image without pgBackRest is named in the ContinuousArchiving condition rather than left to fail
# push after push.
HAS_PGBACKREST=off
if command -v pgbackrest >/dev/null 2>&1; then HAS_PGBACKREST=on; fi
log "Starting PostgreSQL"
exec "$PG_BIN/postgres" -D "$PGDATA" -c config_file="$CONFIG_DIR/$FILE_POSTGRESQL_CONF" \
  -c pgkeeper.image_has_pgbackrest="$HAS_PGBACKREST"
