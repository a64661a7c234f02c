#!/usr/bin/env bash
# e2e tier: the local cluster with its node (real PostgreSQL pods), the e2e jest project, then a
# teardown that must leave no processes, mounts or network devices behind.
set -euo pipefail
cd "$(dirname "$0")/.."

cluster=hack/cluster/cluster.sh
export PGKEEPER_NODE=1
# A control plane started without the node (the integration tier) is restarted with it.
if bash "$cluster" status >/dev/null 2>&1 && ! bash "$cluster" status 2>/dev/null | grep -q '^kubelet'; then
  bash "$cluster" down
fi
cleanup() {
  local rc=$?
  if [ "${PGKEEPER_KEEP_CLUSTER:-0}" != 1 ]; then
    bash "$cluster" down || rc=1
    echo "=== leftovers after teardown ==="
    bash hack/cluster/leftovers.sh || rc=1
  fi
  exit "$rc"
}
trap cleanup EXIT

# The images the tests run (PostgreSQL, the controller): built once, cached, imported by `up`.
bash hack/images/build-all.sh
# Assign first: `eval "$(cmd)"` would hide a failing `up` from `set -e`.
exports="$(bash "$cluster" up)"
eval "$exports"
export KUBECTL="${KUBECTL:-$(command -v kubectl)}"
command -v psql >/dev/null || { apt-get update -qq && apt-get install -y -qq postgresql-client; }
npx jest --selectProjects e2e --runInBand --verbose --testTimeout=600000 "$@"
