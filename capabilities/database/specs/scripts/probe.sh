#!/bin/sh
# probe.sh: startup check and preStop hook of the postgres container.
#
# `ready` asks the local server over the Unix socket (no network, no password) whether it accepts
# connections; a standby answers yes once it reached a consistent state. It is the startup probe,
# which the kubelet runs until it first succeeds and never again in this container (ADR 0039).
#
# `stop` requests a fast shutdown (SIGINT: roll back sessions, checkpoint, exit) and returns at
# once. The kubelet's SIGTERM that follows would only ask for a smart shutdown, which waits for
# every client to disconnect and usually ends in SIGKILL and crash recovery; PostgreSQL never
# downgrades a shutdown already under way, so the fast one wins.
#
# common.sh, with the layout.sh it sources, comes next: the generator pastes it in place of the
# line that sources it.
# shellcheck source-path=SCRIPTDIR source=common.sh
. ./common.sh
case "${1:-}" in
  ready)
    # A restore (bootstrap.recovery) runs its server on PGDATA.restore: not this instance yet.
    [ -s "${PGDATA:-/nonexistent}/PG_VERSION" ] || exit 1
    find_pg_bin pg_isready
    "$PG_BIN/pg_isready" -q -h "$RUN_DIR" -p "$PORT" || exit $?
    # Started fine: entrypoint.sh counts failed starts of a standby from here.
    rm -f "${PGDATA:-/nonexistent}.failed-starts"
    ;;
  stop)
    if [ -f "$PGDATA/postmaster.pid" ]; then
      find_pg_bin pg_ctl
      "$PG_BIN/pg_ctl" stop -D "$PGDATA" -m fast -W || true
    fi
    ;;
  *)
    echo "usage: probe.sh ready|stop" >&2
    exit 2
    ;;
esac
