#!/usr/bin/env bash
# bench/scale: the local control plane (started if needed; PGKEEPER_NODE=0, pods run on fake kwok
# nodes), kwok built from the Go module proxy if missing, then bench/scale/run.ts "$@".
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/cluster/use.sh
export PGKEEPER_NODE=0
stop_cluster_on_exit started
use_cluster
kwok_bin="${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}/kwok/v0.8.0/bin"
if [ ! -x "${kwok_bin}/kwok" ]; then
  GOBIN="${kwok_bin}" go install sigs.k8s.io/kwok/cmd/kwok@v0.8.0
fi
export PGKEEPER_KWOK="${kwok_bin}/kwok"
npx ts-node --transpile-only "bench/${BENCH:-scale}/run.ts" "$@"
