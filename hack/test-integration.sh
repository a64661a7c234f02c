#!/usr/bin/env bash
# Integration tier: the local control plane (built and started if needed), then the jest
# integration project against it with the operator running as in `pepr dev`.
# The cluster is stopped afterwards unless it was already running (or PGKEEPER_KEEP_CLUSTER=1).
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/cluster/use.sh

# The control plane is what this tier tests (pods stay Pending); a running cluster with a node
# is reused as it is.
export PGKEEPER_NODE="${PGKEEPER_NODE:-0}"
stop_cluster_on_exit started
use_cluster
npx jest --selectProjects integration --runInBand --verbose --testTimeout=120000 "$@"
