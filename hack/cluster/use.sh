# shellcheck shell=bash
# The local cluster for a script that needs it, in one place. Sourced, never executed:
#
#   stop_cluster_on_exit started|always
#       on exit, stop the cluster if this script started it (`started`), or in any case and then
#       check that nothing was left behind (`always`); PGKEEPER_KEEP_CLUSTER=1 keeps it running.
#       The script's exit code is kept. Call it before use_cluster.
#   use_cluster
#       bring the cluster up (built from source on first use) and export KUBECONFIG, the
#       cluster's other variables and KUBECTL.

PGKEEPER_CLUSTER_SH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cluster.sh"
_cluster_started_here=0
_cluster_stop_policy=started

stop_cluster_on_exit() {
  _cluster_stop_policy="$1"
  bash "$PGKEEPER_CLUSTER_SH" status >/dev/null 2>&1 || _cluster_started_here=1
  trap _cluster_teardown EXIT
}

_cluster_teardown() {
  local rc=$?
  if [ "${PGKEEPER_KEEP_CLUSTER:-0}" != 1 ]; then
    if [ "$_cluster_stop_policy" = always ]; then
      bash "$PGKEEPER_CLUSTER_SH" down || rc=1
      echo "=== leftovers after teardown ==="
      bash "$(dirname "$PGKEEPER_CLUSTER_SH")/leftovers.sh" || rc=1
    elif [ "$_cluster_started_here" = 1 ]; then
      bash "$PGKEEPER_CLUSTER_SH" down || true
    fi
  fi
  exit "$rc"
}

use_cluster() {
  local exports
  # Assign first: `eval "$(cmd)"` would hide a failing `up` from `set -e`.
  exports="$(bash "$PGKEEPER_CLUSTER_SH" up)"
  eval "$exports"
  KUBECTL="${KUBECTL:-$(command -v kubectl)}"
  export KUBECTL
}
