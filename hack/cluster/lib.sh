# shellcheck shell=bash disable=SC2034 # the settings are used by the scripts that source this
# Shared settings and helpers for build.sh and cluster.sh. Sourced, never executed.
#
# Every path and port can be overridden from the environment so that two checkouts (or a CI job
# next to a developer's cluster) do not collide.

CLUSTER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${CLUSTER_DIR}/../.." && pwd)"
WRAPPER_DIR="${CLUSTER_DIR}/kube" # the Go module that pins the Kubernetes version

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

# The Kubernetes version comes from the wrapper's go.mod, the single place to change it.
kube_version() {
  (cd "${WRAPPER_DIR}" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
}

# Binaries live outside the repo, keyed by version, so a version bump never reuses old builds.
kube_bin_dir() {
  printf '%s/kube/%s/bin\n' "${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}" "$(kube_version)"
}

# Runtime state (PKI, logs, pids, etcd data). `.work/` is gitignored.
WORK_DIR="${PGKEEPER_WORK:-${REPO_ROOT}/.work}/cluster"
PKI_DIR="${WORK_DIR}/pki"
LOG_DIR="${WORK_DIR}/logs"
PID_DIR="${WORK_DIR}/pids"
ETCD_DATA_DIR="${WORK_DIR}/etcd"
KUBECONFIG_PATH="${WORK_DIR}/kubeconfig" # admin (system:masters)
COMPONENT_KUBECONFIG_DIR="${WORK_DIR}/kubeconfigs"
AUDIT_LOG="${LOG_DIR}/audit.log"

# Ports: deliberately away from the Kubernetes defaults (6443, 2379/2380, 10250, 10257, 10259) so
# a real cluster or a packaged etcd on this host cannot interfere.
ETCD_CLIENT_PORT="${PGKEEPER_ETCD_CLIENT_PORT:-23790}"
ETCD_PEER_PORT="${PGKEEPER_ETCD_PEER_PORT:-23800}"
APISERVER_PORT="${PGKEEPER_APISERVER_PORT:-16443}"
CONTROLLER_MANAGER_PORT="${PGKEEPER_CONTROLLER_MANAGER_PORT:-17257}"
SCHEDULER_PORT="${PGKEEPER_SCHEDULER_PORT:-17259}"

# The apiserver advertises a loopback address by default. Endpoints may not hold loopback IPs, so
# in that case the `kubernetes` Service endpoints are not reconciled (see cluster.sh).
ADVERTISE_ADDRESS="${PGKEEPER_ADVERTISE_ADDRESS:-127.0.0.1}"
SERVICE_CIDR="${PGKEEPER_SERVICE_CIDR:-10.96.0.0/16}"
# First address of the service range: the ClusterIP of the `kubernetes` Service.
SERVICE_CLUSTER_IP="${PGKEEPER_SERVICE_CLUSTER_IP:-10.96.0.1}"
CLUSTER_NAME="pgkeeper-local"
