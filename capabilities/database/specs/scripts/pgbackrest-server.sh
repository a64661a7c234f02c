#!/bin/sh
# pgbackrest-server.sh (FILE_PGBACKREST_SERVER): the `pgbackrest` sidecar of an instance that
# backs up to an object store. It runs `pgbackrest server`, which the backup host (a Job)
# reaches over TLS to copy this instance's data directory (ADR 0013).
#
# pgBackRest reads its certificate and the CAs it trusts at start and on SIGHUP. When the
# operator changes `<db>-backup-tls` (a renewal, or a step of moving to another CA: ADR 0021) the
# kubelet replaces the mounted files, and this wrapper sends the server SIGHUP: it loads them
# again and listens anew, while the connections it has already forked go on (a SIGTERM would end
# them, failing a backup in flight). Neither the PostgreSQL container nor this one restarts for
# a certificate. It is PID 1 of its container: it passes SIGTERM on and exits with the server,
# and starts the server again if it ends by itself.
#
# common.sh, with the layout.sh it sources, comes next: the generator pastes it in place of the
# line that sources it.
# shellcheck source-path=SCRIPTDIR source=common.sh
. ./common.sh
# Seconds between looks at the certificate (the kubelet's own refresh takes about a minute).
# TypeScript reads it from here (CERTIFICATE_CHECK_SECONDS in the generated pgbackrest-server.ts).
CERTIFICATE_CHECK_SECONDS=10
CONF="$CONFIG_DIR/$FILE_PGBACKREST_CONF"
CERT=${PGKEEPER_TLS_CERT:-$BACKUP_TLS_CERT}
CA=${PGKEEPER_TLS_CA:-$BACKUP_TLS_CA}
CHECK_SECONDS=${PGKEEPER_TLS_CHECK_SECONDS:-$CERTIFICATE_CHECK_SECONDS}
SERVER=""
NAP=""

stop() {
  [ -z "$NAP" ] || kill "$NAP" 2>/dev/null || true
  if [ -n "$SERVER" ]; then
    kill -TERM "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
  fi
  exit 0
}
trap stop TERM INT

# The certificate and the CAs: a change of either is a change of what the server must load.
fingerprint() { cat "$CERT" "$CA" 2>/dev/null | cksum; }

while :; do
  LOADED=$(fingerprint)
  pgbackrest --config="$CONF" server &
  SERVER=$!
  log "pgbackrest server started (pid $SERVER)"
  while kill -0 "$SERVER" 2>/dev/null; do
    # In the background, so a SIGTERM is handled at once rather than after the nap.
    sleep "$CHECK_SECONDS" &
    NAP=$!
    wait "$NAP" || true
    NAP=""
    NOW=$(fingerprint)
    if [ "$NOW" != "$LOADED" ] && kill -HUP "$SERVER" 2>/dev/null; then
      log "the TLS certificate or its CAs changed: pgbackrest server reloads them (SIGHUP)"
      LOADED=$NOW
    fi
  done
  wait "$SERVER" 2>/dev/null || true
  log "pgbackrest server ended: starting it again"
  sleep 1
done
