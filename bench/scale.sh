#!/usr/bin/env bash
# bench/scale: the local control plane with fake kwok nodes (built from the Go module proxy if
# missing), then bench/scale/run.ts "$@". The operator runs as a host process by default
# (PGKEEPER_NODE=0: no kubelet); OPERATOR=cluster installs it with `pepr deploy` instead, which
# needs the node tier (images, the one real node its pods run on).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/kwok.sh
if [ "${OPERATOR:-dev}" = cluster ]; then
  source bench/lib/node-tier.sh
else
  source hack/cluster/use.sh
  export PGKEEPER_NODE=0
  stop_cluster_on_exit started
  use_cluster
fi
use_kwok
npx ts-node --transpile-only "bench/${BENCH:-scale}/run.ts" "$@"
