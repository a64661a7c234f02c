#!/usr/bin/env bash
# bench/admission: the local control plane (started if needed), then bench/admission/run.ts "$@"
# with the operator in `pepr dev` (port 3000: one such run at a time on this machine, hence the
# lock shared with the tests; -o: what the command starts must not inherit and keep the lock).
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/cluster/use.sh
export PGKEEPER_NODE="${PGKEEPER_NODE:-0}"
stop_cluster_on_exit started
use_cluster
flock -o /tmp/pgkeeper-port3000.lock npx ts-node --transpile-only bench/admission/run.ts "$@"
