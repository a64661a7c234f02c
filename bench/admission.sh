#!/usr/bin/env bash
# bench/admission: the local control plane (started if needed), then bench/admission/run.ts "$@"
# with the operator in `pepr dev` (port 3000: one such run at a time on this machine, hence the
# lock shared with the tests; -o: what the command starts must not inherit and keep the lock).
set -euo pipefail
cd "$(dirname "$0")/.."
export PGKEEPER_NODE="${PGKEEPER_NODE:-0}"
cluster=hack/cluster/cluster.sh
started_here=0
bash "$cluster" status >/dev/null 2>&1 || started_here=1
cleanup() {
  local rc=$?
  if [ "$started_here" = 1 ] && [ "${PGKEEPER_KEEP_CLUSTER:-0}" != 1 ]; then bash "$cluster" down || true; fi
  exit "$rc"
}
trap cleanup EXIT
exports="$(bash "$cluster" up)"
eval "$exports"
export KUBECTL="${KUBECTL:-$(command -v kubectl)}"
flock -o /tmp/pgkeeper-port3000.lock npx ts-node --transpile-only bench/admission/run.ts "$@"
