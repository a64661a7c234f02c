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

# Node tier (node.sh): containerd, kubelet, kube-proxy, CoreDNS and local-path-provisioner on this
# host, so pods really run. PGKEEPER_NODE=0 keeps the control plane alone (pods stay Pending).
NODE_ENABLED="${PGKEEPER_NODE:-1}"
# The node's address lives on a device the node tier creates (NODE_LINK): stable, and independent
# of the VM's own network, which the cluster never needs.
NODE_IP="${PGKEEPER_NODE_IP:-10.250.0.1}"

# The apiserver advertises a loopback address without a node. Endpoints may not hold loopback IPs,
# so in that case the `kubernetes` Service endpoints are not reconciled (see cluster.sh). With the
# node tier it advertises the node IP, which pods reach through the `kubernetes` Service.
if [[ "${NODE_ENABLED}" == 1 ]]; then
  ADVERTISE_ADDRESS="${PGKEEPER_ADVERTISE_ADDRESS:-${NODE_IP}}"
else
  ADVERTISE_ADDRESS="${PGKEEPER_ADVERTISE_ADDRESS:-127.0.0.1}"
fi
SERVICE_CIDR="${PGKEEPER_SERVICE_CIDR:-10.96.0.0/16}"
# First address of the service range: the ClusterIP of the `kubernetes` Service.
SERVICE_CLUSTER_IP="${PGKEEPER_SERVICE_CLUSTER_IP:-10.96.0.1}"
CLUSTER_NAME="pgkeeper-local"

# Node tier settings (node.sh). Network names are per host, not per work dir: one node tier runs
# on a host at a time.
NODE_NAME="${PGKEEPER_NODE_NAME:-pgkeeper-node}"
NODE_LINK=pgk-host # device (an empty bridge) holding NODE_IP; the service range is routed to it
POD_BRIDGE=pgk0    # the pods' bridge (CNI network "pgkeeper")
POD_CIDR="${PGKEEPER_POD_CIDR:-10.244.0.0/24}"
POD_GATEWAY="${POD_CIDR%0/*}1" # first address of the pod subnet (an x.y.z.0/N subnet)
CLUSTER_DNS_IP="${PGKEEPER_CLUSTER_DNS_IP:-10.96.0.10}"
CLUSTER_DOMAIN=cluster.local
NODE_DIR="${WORK_DIR}/node"
KUBELET_PORT="${PGKEEPER_KUBELET_PORT:-17250}" # on NODE_IP; the apiserver calls it for logs/exec
KUBELET_HEALTHZ_PORT="${PGKEEPER_KUBELET_HEALTHZ_PORT:-17248}"
KUBE_PROXY_HEALTHZ_PORT="${PGKEEPER_KUBE_PROXY_HEALTHZ_PORT:-17256}"
KUBE_PROXY_METRICS_PORT="${PGKEEPER_KUBE_PROXY_METRICS_PORT:-17249}"
COREDNS_HEALTH_PORT="${PGKEEPER_COREDNS_HEALTH_PORT:-17253}"
COREDNS_READY_PORT="${PGKEEPER_COREDNS_READY_PORT:-17281}"

# Images imported into containerd (built by hack/images/pause.sh; nothing can be pulled).
PAUSE_IMAGE=localhost/pgkeeper/pause:1
HELPER_IMAGE=localhost/pgkeeper/busybox:1
IMAGE_CACHE_DIR="${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}/images"

# Node tools built from the Go module proxy besides Kubernetes itself (build.sh), into
# NODE_TOOLS_BIN_DIR. CoreDNS is pinned by its wrapper module (coredns/go.mod).
LOCAL_PATH_PROVISIONER_VERSION=v0.0.30
CRICTL_VERSION=v1.34.0
VERSITYGW_VERSION=v1.8.0

# The S3-compatible object store of the local cluster (versitygw, posix backend): a host process
# on the node IP (pods) and loopback (host tools), TLS with a certificate of the cluster CA.
# Pods reach it as https://${OBJECTSTORE_SERVICE_HOST} (a Service without selector whose
# endpoint is NODE_IP:OBJECTSTORE_PORT); the bucket OBJECTSTORE_BUCKET exists from `up` on.
# Its data outlives `down`, like the volumes': delete the work dir to start over.
OBJECTSTORE_PORT="${PGKEEPER_OBJECTSTORE_PORT:-17290}"
OBJECTSTORE_HEALTH_PATH=/health
OBJECTSTORE_NAMESPACE=pgkeeper-objectstore
OBJECTSTORE_SERVICE_HOST="s3.${OBJECTSTORE_NAMESPACE}.svc"
OBJECTSTORE_BUCKET=pgkeeper
NODE_TOOLS_BIN_DIR="${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}/node-tools/bin"

# The node's OCI registry (registry/, go-containerregistry's server; node.sh): a host process on
# loopback only (containerd and the kubelet pull from the host), HTTPS with a certificate of the
# cluster CA, Basic authentication. containerd pulls REGISTRY_HOST/... like any registry; `up`
# pushes the PostgreSQL and controller images into it (hack/images/push.sh).
REGISTRY_PORT="${PGKEEPER_REGISTRY_PORT:-17295}"
REGISTRY_HOST="localhost:${REGISTRY_PORT}"
# Its blobs. The registry keeps manifests in memory only, so `down` deletes them with it.
REGISTRY_DATA_DIR="${NODE_DIR}/registry-blobs"
