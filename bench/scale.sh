#!/usr/bin/env bash
# bench/scale: the local control plane (started if needed; PGKEEPER_NODE=0, pods run on fake kwok
# nodes), kwok built from the Go module proxy if missing, then bench/scale/run.ts "$@".
set -euo pipefail
cd "$(dirname "$0")/.."
export PGKEEPER_NODE=0
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
kwok_bin="${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}/kwok/v0.8.0/bin"
if [ ! -x "${kwok_bin}/kwok" ]; then
  GOBIN="${kwok_bin}" go install sigs.k8s.io/kwok/cmd/kwok@v0.8.0
fi
export PGKEEPER_KWOK="${kwok_bin}/kwok"
npx ts-node --transpile-only "bench/${BENCH:-scale}/run.ts" "$@"
