#!/usr/bin/env bash
# Integration tier: the local control plane (built and started if needed), then the jest
# integration project against it with the operator running as in `pepr dev`.
# The cluster is stopped afterwards unless it was already running (or PGKEEPER_KEEP_CLUSTER=1).
set -euo pipefail
cd "$(dirname "$0")/.."

cluster=hack/cluster/cluster.sh
# The control plane is what this tier tests (pods stay Pending); a running cluster with a node
# is reused as it is.
export PGKEEPER_NODE="${PGKEEPER_NODE:-0}"
started_here=0
if ! bash "$cluster" status >/dev/null 2>&1; then
  started_here=1
fi
cleanup() {
  local rc=$?
  if [ "$started_here" = 1 ] && [ "${PGKEEPER_KEEP_CLUSTER:-0}" != 1 ]; then
    bash "$cluster" down || true
  fi
  exit "$rc"
}
trap cleanup EXIT

# Assign first: `eval "$(cmd)"` would hide a failing `up` from `set -e`.
exports="$(bash "$cluster" up)"
eval "$exports"
export KUBECTL="${KUBECTL:-$(command -v kubectl)}"
npx jest --selectProjects integration --runInBand --verbose --testTimeout=120000 "$@"
