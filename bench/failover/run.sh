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

source hack/cluster/use.sh
source hack/need.sh
export PGKEEPER_NODE=1
stop_cluster_on_exit always
bash hack/images/build-all.sh
use_cluster
need psql postgresql-client
npx ts-node --transpile-only bench/failover/failover.ts
