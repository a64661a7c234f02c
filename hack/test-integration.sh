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
npx jest --selectProjects integration --runInBand --verbose --testTimeout=120000 \
  --json --outputFile="${TEST_LOGS:-.work/test-logs}/integration.json" "$@"
# The operator's requests in this tier, for the e2e tier's RBAC-against-use check
# (hack/rbac-audit): the e2e tier starts another cluster, with another audit log.
if [ "$#" -eq 0 ]; then
  audit_dir="${PGKEEPER_WORK:-.work}/audit"
  mkdir -p "$audit_dir"
  grep -F -e '"username":"pgkeeper-operator"' -e '"username":"system:serviceaccount:pepr-system:' \
    "$PGKEEPER_AUDIT_LOG" >"$audit_dir/integration.log" || true
fi
