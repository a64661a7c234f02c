#!/bin/sh
# metrics.sh (FILE_METRICS): the `metrics` sidecar of an instance (ADR 0043). It runs the image's
# prometheus-postgres-exporter, whose path is the first argument and whose flags are the rest
# (specs/metrics-sidecar.ts builds them per major), logged in as pgkeeper_monitor over the local
# socket (DATA_SOURCE_NAME, from the container's environment).
#
# It is PID 1 of its container and never ends by itself: a metrics container that failed would
# take the pod out of its Services, and a database must not stop serving for its metrics. An
# image without the exporter (a user's own build) says so once and idles; an exporter that ends
# is started again. SIGTERM is passed on.
#
# The exporter reads its queries file once, when it first connects: the operator rewrites the file
# (the user's queries, or a new major's), the kubelet refreshes the mounted ConfigMap, and this
# wrapper, seeing the file change, restarts the exporter so that it loads it (a scrape missed at
# most). It reads its TLS files at every connection, so a renewed certificate needs nothing.
#
# common.sh, with the layout.sh it sources, comes next: the generator pastes it in place of the
# line that sources it.
# shellcheck source-path=SCRIPTDIR source=common.sh
. ./common.sh
EXPORTER="$1"
shift
# Seconds between looks at the queries file (the kubelet's own refresh takes about a minute).
CHECK_SECONDS=${PGKEEPER_QUERIES_CHECK_SECONDS:-10}
QUERIES=""
for arg in "$@"; do
  case "$arg" in
    --extend.query-path=*) QUERIES=${arg#--extend.query-path=} ;;
  esac
done
CHILD=""
NAP=""

stop() {
  [ -z "$NAP" ] || kill "$NAP" 2>/dev/null || true
  if [ -n "$CHILD" ]; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  exit 0
}
trap stop TERM INT

# In the background, so a SIGTERM is handled at once rather than after the nap.
nap() {
  sleep "$1" &
  NAP=$!
  wait "$NAP" || true
  NAP=""
}

if [ ! -x "$EXPORTER" ]; then
  log "no $EXPORTER in this image: no PostgreSQL metrics on this instance (the server is not affected)"
  while :; do nap 3600; done
fi

fingerprint() { [ -z "$QUERIES" ] || cksum <"$QUERIES" 2>/dev/null || true; }

while :; do
  LOADED=$(fingerprint)
  CHANGED=""
  "$EXPORTER" "$@" &
  CHILD=$!
  while kill -0 "$CHILD" 2>/dev/null; do
    nap "$CHECK_SECONDS"
    if [ "$(fingerprint)" != "$LOADED" ]; then
      log "the queries file changed: restarting the exporter so that it loads it"
      CHANGED=1
      kill -TERM "$CHILD" 2>/dev/null || true
    fi
  done
  wait "$CHILD" 2>/dev/null || true
  CHILD=""
  if [ -z "$CHANGED" ]; then
    log "$EXPORTER ended: starting it again in 5 s"
    nap 5
  fi
done
