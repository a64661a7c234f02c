#!/usr/bin/env bash
# bench/fuzz: the local control plane (started if needed), then bench/fuzz/run.ts "$@" with the
# operator in `pepr dev` (port 3000: one such run at a time on this machine, hence the lock shared
# with the tests; -o: what the command starts must not inherit and keep the lock).
#   bash bench/fuzz.sh --seed 1 --cases 10000 --concurrency 6 --mode both
#   bash bench/fuzz.sh --seed 1 --case 1234 [--mode none]
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/cluster/use.sh
export PGKEEPER_NODE="${PGKEEPER_NODE:-0}"
stop_cluster_on_exit started
use_cluster
flock -o /tmp/pgkeeper-port3000.lock npx ts-node --transpile-only bench/fuzz/run.ts "$@"
