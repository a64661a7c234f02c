#!/usr/bin/env bash
# bench/failover: time from a primary fault to the first write acknowledged by the new primary,
# and rows lost, over many failovers, in asynchronous and synchronous (quorum) mode.
#
#   npm run bench:failover                 # 10 failovers per mode, fault = delete the primary pod
#   FAILOVERS=20 FAULT=stop npm run bench:failover     # FAULT: delete | kill | stop (SIGSTOP)
#
# Needs the node tier (real pods): builds the images and brings the cluster up like `npm run
# test:e2e`, runs the operator with `pepr dev`, prints figures, then stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/../.."

cluster=hack/cluster/cluster.sh
export PGKEEPER_NODE=1
cleanup() {
  local rc=$?
  [ "${PGKEEPER_KEEP_CLUSTER:-0}" = 1 ] || bash "$cluster" down || rc=1
  exit "$rc"
}
trap cleanup EXIT
bash hack/images/build-all.sh
exports="$(bash "$cluster" up)"
eval "$exports"
export KUBECTL="${KUBECTL:-$(command -v kubectl)}"
command -v psql >/dev/null || { apt-get update -qq && apt-get install -y -qq postgresql-client; }
npx ts-node --transpile-only bench/failover/failover.ts
