#!/usr/bin/env bash
# bench/scale: the local control plane (started if needed; PGKEEPER_NODE=0, pods run on fake kwok
# nodes), kwok built from the Go module proxy if missing, then bench/scale/run.ts "$@".
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/cluster/use.sh
source bench/lib/kwok.sh
export PGKEEPER_NODE=0
stop_cluster_on_exit started
use_cluster
use_kwok
npx ts-node --transpile-only "bench/${BENCH:-scale}/run.ts" "$@"
