# shellcheck shell=bash
# The node tier of the local cluster: containerd, an OCI registry, CoreDNS, kubelet, kube-proxy,
# local-path-provisioner and an object store as host processes, on a small network of their own.
# Sourced by cluster.sh (after lib.sh and pki.sh), which starts and stops these components like
# the control plane's (PID files, logs); this file adds what only a node needs: host preparation,
# configs, images, cluster objects, and a teardown that leaves no process, mount or device behind.
#
# Host changes (made by `up`, undone by `down` unless marked "kept"):
#   - `mount --make-rshared /` (kept; see node_prepare_host)
#   - device NODE_LINK (an empty bridge) with NODE_IP, the service range routed to it
#   - bridge POD_BRIDGE with the pod gateway; veths and network namespaces of pods
#   - iptables rules of kube-proxy (KUBE-*) and of the CNI plugins (CNI-*)
#   - cgroups /sys/fs/cgroup/*/kubepods of the kubelet
#   - net.ipv4.ip_forward=1 and br_netfilter when they were off (kept)

# start order
NODE_COMPONENTS=(containerd registry coredns kubelet kube-proxy local-path-provisioner objectstore)
NODE_TEMPLATE_DIR="${CLUSTER_DIR}/node"
NODE_CONFIG_DIR="${NODE_DIR}/config"
CONTAINERD_DIR="${NODE_DIR}/containerd"
CONTAINERD_SOCKET="${CONTAINERD_DIR}/containerd.sock"
KUBELET_DIR="${NODE_DIR}/kubelet"
STORAGE_DIR="${NODE_DIR}/storage"
# Present while this work dir's node network is set up: `down` of another work dir (a
# control-plane-only checkout) must not tear down a node it did not create.
NODE_MARKER="${NODE_DIR}/network-up"

# Names the templates in node/ may use, as ${NAME}.
TEMPLATE_VARS=(CLUSTER_DIR CLUSTER_DNS_IP CLUSTER_DOMAIN CLUSTER_NAME COMPONENT_KUBECONFIG_DIR
  CONTAINERD_DIR CONTAINERD_SOCKET COREDNS_HEALTH_PORT COREDNS_READY_PORT HELPER_IMAGE
  KUBE_PROXY_HEALTHZ_PORT KUBE_PROXY_METRICS_PORT KUBELET_HEALTHZ_PORT KUBELET_PORT
  NODE_CONFIG_DIR NODE_DIR NODE_IP NODE_NAME OBJECTSTORE_NAMESPACE OBJECTSTORE_PORT
  OBJECTSTORE_SERVICE_HOST PAUSE_IMAGE PKI_DIR POD_BRIDGE POD_CIDR POD_GATEWAY STORAGE_DIR)
# The object store's buckets (a bucket is a directory) and root credentials (made once).
OBJECTSTORE_DIR="${NODE_DIR}/objectstore"
OBJECTSTORE_CREDENTIALS="${PKI_DIR}/objectstore.credentials"
# The registry's account, one `user:password` line (made once, like the object store's).
REGISTRY_CREDENTIALS="${PKI_DIR}/registry.credentials"

is_node_component() { [[ " ${NODE_COMPONENTS[*]} " == *" $1 "* ]]; }

node_component_binary() {
  case "$1" in
    containerd) readlink -f "$(command -v containerd)" ;;
    kubelet | kube-proxy) printf '%s/%s\n' "${BIN_DIR}" "$1" ;;
    coredns | local-path-provisioner | registry) printf '%s/%s\n' "${NODE_TOOLS_BIN_DIR}" "$1" ;;
    objectstore) printf '%s/versitygw\n' "${NODE_TOOLS_BIN_DIR}" ;;
  esac
}

# The TCP ports a node component listens on (checked free before `up`). CoreDNS's port 53 is
# bound on NODE_IP only and not checked here: another resolver on 127.0.0.53:53 is no conflict.
node_component_ports() {
  case "$1" in
    coredns) echo "${COREDNS_HEALTH_PORT} ${COREDNS_READY_PORT}" ;;
    kubelet) echo "${KUBELET_PORT} ${KUBELET_HEALTHZ_PORT}" ;;
    kube-proxy) echo "${KUBE_PROXY_HEALTHZ_PORT} ${KUBE_PROXY_METRICS_PORT}" ;;
    objectstore) echo "${OBJECTSTORE_PORT}" ;;
    registry) echo "${REGISTRY_PORT}" ;;
  esac
}

# Command-line flags, into the global array ARGS (read by cluster.sh's start_component).
node_component_args() {
  local kc="${COMPONENT_KUBECONFIG_DIR}"
  # shellcheck disable=SC2034 # ARGS is read by the caller
  case "$1" in
    containerd) ARGS=(--config="${NODE_CONFIG_DIR}/containerd.toml") ;;
    coredns) ARGS=(-conf "${NODE_CONFIG_DIR}/Corefile") ;;
    kubelet)
      ARGS=(--config="${NODE_CONFIG_DIR}/kubelet.yaml" --kubeconfig="${kc}/kubelet.kubeconfig"
        --root-dir="${KUBELET_DIR}" --cert-dir="${KUBELET_DIR}/pki" --hostname-override="${NODE_NAME}" --node-ip="${NODE_IP}")
      ;;
    kube-proxy) ARGS=(--config="${NODE_CONFIG_DIR}/kube-proxy.yaml") ;;
    local-path-provisioner)
      ARGS=(--debug start --kubeconfig="${kc}/local-path-provisioner.kubeconfig"
        --config="${NODE_CONFIG_DIR}/local-path-config.json"
        --provisioner-name=rancher.io/local-path --namespace=local-path-storage
        --configmap-name=local-path-config
        --service-account-name=local-path-provisioner-service-account
        --helper-image="${HELPER_IMAGE}")
      ;;
    # Credentials come from the environment (objectstore_start), never the command line.
    objectstore)
      ARGS=(--port "${NODE_IP}:${OBJECTSTORE_PORT}" --port "127.0.0.1:${OBJECTSTORE_PORT}"
        --cert "${PKI_DIR}/objectstore.crt" --key "${PKI_DIR}/objectstore.key"
        --health "${OBJECTSTORE_HEALTH_PATH}" --quiet posix "${OBJECTSTORE_DIR}")
      ;;
    # The command line names the credentials file, never the password.
    registry)
      ARGS=(serve --addr "127.0.0.1:${REGISTRY_PORT}" --tls-cert "${PKI_DIR}/registry.crt"
        --tls-key "${PKI_DIR}/registry.key" --credentials "${REGISTRY_CREDENTIALS}"
        --blobs "${REGISTRY_DATA_DIR}")
      ;;
  esac
}

ctr_() { ctr --address "${CONTAINERD_SOCKET}" --namespace k8s.io "$@"; }
crictl_() {
  "${NODE_TOOLS_BIN_DIR}/crictl" --config /dev/null --timeout 30s \
    --runtime-endpoint "unix://${CONTAINERD_SOCKET}" --image-endpoint "unix://${CONTAINERD_SOCKET}" "$@"
}

node_component_healthy() {
  case "$1" in
    containerd) ctr_ version >/dev/null 2>&1 ;;
    coredns) curl -fsS --max-time 3 "http://127.0.0.1:${COREDNS_READY_PORT}/ready" >/dev/null 2>&1 ;;
    kubelet) curl -fsS --max-time 3 "http://127.0.0.1:${KUBELET_HEALTHZ_PORT}/healthz" >/dev/null 2>&1 ;;
    kube-proxy) curl -fsS --max-time 3 "http://127.0.0.1:${KUBE_PROXY_HEALTHZ_PORT}/healthz" >/dev/null 2>&1 ;;
    local-path-provisioner) true ;; # no health endpoint: alive is all we can tell
    objectstore)
      curl -fsS --max-time 3 --cacert "${PKI_DIR}/ca.crt" \
        "https://127.0.0.1:${OBJECTSTORE_PORT}${OBJECTSTORE_HEALTH_PATH}" >/dev/null 2>&1
      ;;
    # By the name containerd uses, so the certificate's DNS name is checked too.
    registry)
      curl -fsS --max-time 3 --cacert "${PKI_DIR}/ca.crt" "https://${REGISTRY_HOST}/v2/" >/dev/null 2>&1
      ;;
  esac
}

# render TEMPLATE: prints node/TEMPLATE with the ${NAME}s of TEMPLATE_VARS substituted (and no
# other `$`, so shell scripts inside a template stay as they are).
render() {
  local names=() name
  for name in "${TEMPLATE_VARS[@]}"; do names+=("\${${name}}"); done
  (
    # shellcheck disable=SC2163 # exports the variable named by ${name}
    for name in "${TEMPLATE_VARS[@]}"; do export "${name}"; done
    envsubst "${names[*]}" <"${NODE_TEMPLATE_DIR}/$1"
  )
}

# Refuses early, with the reason, on a host that cannot run the node.
node_check_host() {
  [[ "$(id -u)" == 0 ]] ||
    die "the node tier needs root (containers, mounts, network devices); PGKEEPER_NODE=0 runs the control plane alone"
  local cmd
  for cmd in containerd runc ctr iptables iptables-save conntrack ip envsubst findmnt; do
    command -v "${cmd}" >/dev/null || die "node tier: ${cmd} not found (build.sh installs it)"
  done
  [[ -x /usr/lib/cni/bridge ]] || die "node tier: no CNI plugins in /usr/lib/cni (build.sh installs them)"
  [[ -d /sys/fs/cgroup/memory || -f /sys/fs/cgroup/cgroup.controllers ]] ||
    die "node tier: no memory cgroup controller under /sys/fs/cgroup"
  (( ${#CONTAINERD_SOCKET} < 100 )) ||
    die "node tier: ${CONTAINERD_SOCKET} is too long for a unix socket; set a shorter PGKEEPER_WORK"
}

# Host state the kubelet, containerd and the pod network need. Idempotent.
node_prepare_host() {
  local prefix="${POD_CIDR#*/}"
  # The kubelet mounts volumes (projected service-account tokens, ...) under its root dir and
  # containers see them through bind mounts; with private propagation on / (this VM's default;
  # systemd hosts default to shared) a mount made after a container started never reaches it,
  # and the kubelet refuses mount propagation modes other than None. Kept after `down`: shared
  # propagation is what systemd sets anyway, and reverting it could break other mounts.
  mount --make-rshared /
  # Pods reach Services through the host's netfilter: bridged traffic must traverse iptables.
  [[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]] || modprobe br_netfilter ||
    die "node tier: cannot load br_netfilter (pods could not reach Services)"
  [[ "$(</proc/sys/net/bridge/bridge-nf-call-iptables)" == 1 ]] ||
    sysctl -qw net.bridge.bridge-nf-call-iptables=1
  [[ "$(</proc/sys/net/ipv4/ip_forward)" == 1 ]] || sysctl -qw net.ipv4.ip_forward=1

  mkdir -p "${NODE_DIR}"
  touch "${NODE_MARKER}"
  # The node IP on a device of its own: the apiserver advertises it (the `kubernetes` Service's
  # endpoint), CoreDNS and the kubelet bind to it; it exists only on this host. A bridge without
  # ports, because kernels without CONFIG_DUMMY (this VM's) cannot make a dummy device; an address
  # on it works like one on a dummy device (local delivery, no carrier needed).
  ip link show "${NODE_LINK}" >/dev/null 2>&1 || ip link add "${NODE_LINK}" type bridge
  ip addr replace "${NODE_IP}/32" dev "${NODE_LINK}"
  ip link set "${NODE_LINK}" up
  # Service IPs exist only as kube-proxy's DNAT rules. A route for the whole range into that
  # device makes the host's own connections to a ClusterIP pass the route lookup (then DNAT picks
  # the endpoint); and a ClusterIP without rules (kube-proxy not synced yet) is dropped on this
  # host instead of leaving through the default route.
  ip route replace "${SERVICE_CIDR}" dev "${NODE_LINK}"
  # The pods' bridge, made here rather than by the CNI plugin on the first pod, so the pod subnet
  # is routed to it (and nowhere else) from the start. The bridge plugin adopts it.
  ip link show "${POD_BRIDGE}" >/dev/null 2>&1 || ip link add "${POD_BRIDGE}" type bridge
  ip addr replace "${POD_GATEWAY}/${prefix}" dev "${POD_BRIDGE}"
  ip link set "${POD_BRIDGE}" up
}

# Client certificates and kubeconfigs of the node's components (CN = user, O = group).
node_write_credentials() {
  issue_client_cert kubelet "/O=system:nodes/CN=system:node:${NODE_NAME}"
  issue_client_cert kube-proxy "/CN=system:kube-proxy"
  issue_client_cert coredns "/CN=pgkeeper:coredns"
  issue_client_cert local-path-provisioner "/CN=pgkeeper:local-path-provisioner"
  local name
  for name in kubelet kube-proxy coredns local-path-provisioner; do
    write_kubeconfig "${COMPONENT_KUBECONFIG_DIR}/${name}.kubeconfig" "${name}" "${name}"
  done
  # The object store's serving certificate: pgBackRest checks DNS names only (not IP SANs).
  issue_serving_cert objectstore "/CN=pgkeeper objectstore" "$(objectstore_sans)"
  if [[ ! -s "${OBJECTSTORE_CREDENTIALS}" ]]; then
    (umask 077 && printf 'ROOT_ACCESS_KEY=%s\nROOT_SECRET_KEY=%s\n' \
      "pgk$(openssl rand -hex 8)" "$(openssl rand -hex 24)" >"${OBJECTSTORE_CREDENTIALS}")
  fi
  # The registry's: containerd reaches it as localhost (hosts.toml), host tools may use either.
  issue_serving_cert registry "/CN=pgkeeper registry" "DNS:localhost,IP:127.0.0.1"
  if [[ ! -s "${REGISTRY_CREDENTIALS}" ]]; then
    (umask 077 && printf 'pgkeeper:%s\n' "$(openssl rand -hex 24)" >"${REGISTRY_CREDENTIALS}")
  fi
}

objectstore_sans() {
  printf 'DNS:localhost,DNS:%s,DNS:%s.%s,IP:127.0.0.1,IP:%s\n' "${OBJECTSTORE_SERVICE_HOST}" \
    "${OBJECTSTORE_SERVICE_HOST}" "${CLUSTER_DOMAIN}" "${NODE_IP}"
}

# Starts versitygw with its root credentials in its environment (a command line is world-readable
# in /proc), the bucket made first: with the posix backend a bucket is a directory.
objectstore_start() {
  mkdir -p "${OBJECTSTORE_DIR}/${OBJECTSTORE_BUCKET}"
  (
    set -a
    # shellcheck source=/dev/null # made by node_write_credentials
    source "${OBJECTSTORE_CREDENTIALS}"
    set +a
    start_component objectstore
  )
}

# The PostgreSQL and controller images into the registry (hack/images/push.sh, idempotent: a tag
# that already names the archive's digest costs one request). On every `up`, because the registry
# keeps manifests in memory: a restarted one is empty.
node_push_images() {
  PGKEEPER_REGISTRY_BIN="${NODE_TOOLS_BIN_DIR}/registry" PGKEEPER_PUSH_PRIVATE_COPY=1 \
    bash "${REPO_ROOT}/hack/images/push.sh" \
    "${REGISTRY_HOST}" "${PKI_DIR}/ca.crt" "${REGISTRY_CREDENTIALS}"
}

# containerd's hosts.toml for the registry: HTTPS verified with the cluster CA (the host's trust
# store is left alone), pull and resolve only. The root `server` is a host entry too, tried after
# the [host] ones: it gets the CA as well, or a refused pull (401) would end in a TLS error there.
registry_hosts_toml() {
  local url="https://${REGISTRY_HOST}"
  printf '%s\n' "server = \"${url}\"" "ca = \"${PKI_DIR}/ca.crt\"" '' "[host.\"${url}\"]" \
    "  ca = \"${PKI_DIR}/ca.crt\"" '  capabilities = ["pull", "resolve"]'
}

# update_file FILE: replaces FILE with stdin, atomically, and only when the content differs.
# kube-proxy exits when its config file is written to (even with the same content), and
# containerd and local-path-provisioner watch theirs too.
update_file() {
  local file="$1" tmp
  tmp="$(dirname "${file}")/.$(basename "${file}").tmp"
  cat >"${tmp}"
  if cmp -s "${tmp}" "${file}"; then
    rm -f "${tmp}"
  else
    mv -f "${tmp}" "${file}"
  fi
}

node_write_configs() {
  mkdir -p "${NODE_CONFIG_DIR}/cni" "${CONTAINERD_DIR}" "${KUBELET_DIR}" "${STORAGE_DIR}" \
    "${NODE_DIR}/pod-logs" "${NODE_DIR}/volume-plugins"
  render containerd.toml | update_file "${NODE_CONFIG_DIR}/containerd.toml"
  render kubelet.yaml | update_file "${NODE_CONFIG_DIR}/kubelet.yaml"
  render kube-proxy.yaml | update_file "${NODE_CONFIG_DIR}/kube-proxy.yaml"
  render Corefile | update_file "${NODE_CONFIG_DIR}/Corefile"
  render local-path-config.json | update_file "${NODE_CONFIG_DIR}/local-path-config.json"
  # Pods with dnsPolicy Default (and the search/options of ClusterFirst pods) read this.
  printf 'nameserver %s\n' "${NODE_IP}" | update_file "${NODE_CONFIG_DIR}/resolv.conf"
  render cni.conflist | update_file "${NODE_CONFIG_DIR}/cni/10-pgkeeper.conflist"
  # Registry hosts (containerd.toml's config_path): `_default` for every registry, docker.io
  # because short names (`postgres:15`) normalise to it. Port 9 on loopback: nothing listens.
  # containerd 1.6 ignores a hosts.toml without a [host] table ("invalid `host` tree") and then
  # goes to the real registry, hence the table.
  local registry
  for registry in _default docker.io; do
    mkdir -p "${NODE_CONFIG_DIR}/registry/${registry}"
    printf '%s\n' 'server = "http://127.0.0.1:9"' '' '[host."http://127.0.0.1:9"]' \
      '  capabilities = ["pull", "resolve"]' |
      update_file "${NODE_CONFIG_DIR}/registry/${registry}/hosts.toml"
  done
  # The node's own registry (a directory per host:port, which containerd looks up first).
  mkdir -p "${NODE_CONFIG_DIR}/registry/${REGISTRY_HOST}"
  registry_hosts_toml | update_file "${NODE_CONFIG_DIR}/registry/${REGISTRY_HOST}/hosts.toml"
  # The helper pods of local-path-provisioner create volume directories in here.
  chmod 0755 "${NODE_DIR}" "${STORAGE_DIR}"
}

# The two images the node itself needs, imported (import.sh skips what containerd has): pause (the
# sandbox image) and busybox (local-path-provisioner's helper pods); built here when missing.
# Every other image (PostgreSQL, the operator) is pulled from the registry, as in production:
# imported too, containerd would find every layer at home and never download one.
node_import_images() {
  if [[ ! -s "${IMAGE_CACHE_DIR}/pause.tar" || ! -s "${IMAGE_CACHE_DIR}/busybox.tar" ]]; then
    log "node: building the pause and busybox images (hack/images/pause.sh) ..."
    bash "${REPO_ROOT}/hack/images/pause.sh"
  fi
  bash "${REPO_ROOT}/hack/images/import.sh" "${CONTAINERD_SOCKET}" k8s.io pause busybox
  grep -qx "${PAUSE_IMAGE}" <<<"$(ctr_ images ls -q)" || die "node: ${PAUSE_IMAGE} missing after import"
  node_forget_pulled_images
}

# Every other image goes at `up` (containerd's root outlives `down`): each run pulls from the
# registry like a fresh node, downloading the layers; and an image pulled with credentials is
# gone, which the kubelet would otherwise run for any pod naming it with IfNotPresent.
node_forget_pulled_images() {
  local listing kept refs
  # REF TYPE DIGEST ...: pause and busybox stay, with every reference to their digests (the CRI
  # plugin adds one by image id, sha256:<config>).
  listing="$(ctr_ images ls | awk 'NR > 1 { print $1, $3 }')"
  kept="$(awk -v p="${PAUSE_IMAGE}" -v h="${HELPER_IMAGE}" '$1 == p || $1 == h { print $2 }' <<<"${listing}")"
  refs="$(awk 'NR == FNR { keep[$1] = 1; next } !($2 in keep) { print $1 }' \
    <(printf '%s\n' "${kept}") <(printf '%s\n' "${listing}"))"
  [[ -n "${refs}" ]] || return 0
  # shellcheck disable=SC2086 # one reference per word
  ctr_ images rm ${refs} >/dev/null
  log "node: forgot $(wc -l <<<"${refs}") pulled images (pulled again from the registry)"
}

kubectl_() { "${BIN_DIR}/kubectl" --kubeconfig "${KUBECONFIG_PATH}" "$@"; }

node_apply_manifests() {
  render manifests.yaml | kubectl_ apply --server-side --force-conflicts \
    --field-manager=pgkeeper-cluster-sh -f - >/dev/null
}

# Ready, and untainted by the node lifecycle controller (pods without tolerations schedule).
node_ready() {
  local node
  node="$(api_get "/api/v1/nodes/${NODE_NAME}" 2>/dev/null)" || return 1
  jq -e '(.status.conditions[] | select(.type == "Ready") | .status == "True")
    and ([.spec.taints[]? | select(.key | startswith("node.kubernetes.io/"))] | length == 0)' \
    <<<"${node}" >/dev/null
}

# The `kubernetes` Service's endpoint is the node IP (the apiserver's lease reconciler).
kubernetes_endpoint_ready() {
  api_get /apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes 2>/dev/null |
    jq -e --arg ip "${NODE_IP}" '[.endpoints[]?.addresses[]] | index($ip) != null' >/dev/null
}

# An apiserver started without the node tier (PGKEEPER_NODE=0) advertises 127.0.0.1, which leaves
# the `kubernetes` Service without endpoints: stop it, so `up` starts it again with the node IP.
# Clients keep working: same port, same CA, and etcd keeps the cluster's state.
node_reconcile_apiserver() {
  local pid
  pid="$(running_pid kube-apiserver)" || return 0
  tr '\0' '\n' <"/proc/${pid}/cmdline" | grep -qx -- "--advertise-address=${ADVERTISE_ADDRESS}" &&
    return 0
  log "kube-apiserver (pid ${pid}) runs without the node tier: restarting it to advertise ${ADVERTISE_ADDRESS}"
  stop_component kube-apiserver
}

# The object store for tools and tests: where pods reach it, where the host does (pgBackRest
# verifies the certificate's DNS names: `localhost` here), the bucket, the CA, and the file with the
# root credentials (ROOT_ACCESS_KEY, ROOT_SECRET_KEY), which stay out of the environment; and its
# PID file ("PID BINARY"), for tests that make the store stall.
node_print_env() {
  printf 'export PGKEEPER_S3_ENDPOINT=%q\n' "${OBJECTSTORE_SERVICE_HOST}"
  printf 'export PGKEEPER_S3_HOST_ENDPOINT=%q\n' "localhost:${OBJECTSTORE_PORT}"
  printf 'export PGKEEPER_S3_BUCKET=%q\n' "${OBJECTSTORE_BUCKET}"
  printf 'export PGKEEPER_S3_CA=%q\n' "${PKI_DIR}/ca.crt"
  printf 'export PGKEEPER_S3_CREDENTIALS=%q\n' "${OBJECTSTORE_CREDENTIALS}"
  printf 'export PGKEEPER_S3_PID_FILE=%q\n' "$(pid_file objectstore)"
  # The registry: its name in image references, the CA and the credentials file (`user:password`).
  printf 'export PGKEEPER_REGISTRY=%q\n' "${REGISTRY_HOST}"
  printf 'export PGKEEPER_REGISTRY_CA=%q\n' "${PKI_DIR}/ca.crt"
  printf 'export PGKEEPER_REGISTRY_CREDENTIALS=%q\n' "${REGISTRY_CREDENTIALS}"
}

# Starts the node after the control plane is up. Idempotent like the rest of `up`.
node_up() {
  node_write_credentials
  node_write_configs

  start_component containerd
  start_component registry # makes its blob directory itself (mode 0700)
  wait_until containerd "containerd socket" component_healthy containerd
  node_import_images
  # Pushed before the kubelet starts: pods that outlived a `down` come back at once, and would
  # otherwise back off on their first pull.
  wait_until registry "registry https://${REGISTRY_HOST}/v2/" component_healthy registry
  node_push_images
  node_apply_manifests

  start_component coredns
  start_component kubelet
  wait_until kubelet "kubelet /healthz" component_healthy kubelet
  start_component kube-proxy
  wait_until kube-proxy "kube-proxy /healthz" component_healthy kube-proxy
  wait_until coredns "CoreDNS /ready" component_healthy coredns
  wait_until kubelet "node ${NODE_NAME} Ready" node_ready
  wait_until kube-apiserver "Service kubernetes -> ${NODE_IP}" kubernetes_endpoint_ready
  start_component local-path-provisioner
  objectstore_start
  wait_until objectstore "object store ${OBJECTSTORE_HEALTH_PATH}" component_healthy objectstore
}

# With PGKEEPER_NODE=0 on a work dir that ran a node before, its Node object would stay "Ready"
# until the node lifecycle controller's grace period (40 s) ran out, and take pods meanwhile.
node_forget() {
  ! running_pid kubelet >/dev/null || return 0 # a node tier still runs: `down` first
  api_ok "/api/v1/nodes/${NODE_NAME}" || return 0
  log "node: deleting Node ${NODE_NAME} (PGKEEPER_NODE=0; its pods are deleted by the pod GC)"
  kubectl_ delete node "${NODE_NAME}" --wait=false >/dev/null
}

# Removes every pod sandbox through the CRI, as the kubelet would: containers stopped, CNI DEL
# (veth, IP address, ipMasq rules), network namespace and sandbox mounts released. Pods stay in
# the API; the kubelet recreates their sandboxes on the next `up`.
node_remove_pods() {
  running_pid containerd >/dev/null || return 0
  if [[ -n "$(crictl_ pods -q 2>/dev/null)" ]]; then
    log "node: removing $(crictl_ pods -q | wc -l) pod sandboxes ..."
    crictl_ rmp --all --force >/dev/null || log "node: crictl rmp failed; continuing"
  fi
  # Anything else in the namespace (a `ctr run` by hand, a sandbox crictl could not remove).
  local task
  for task in $(ctr_ tasks ls -q 2>/dev/null); do
    ctr_ tasks kill --signal SIGKILL "${task}" >/dev/null 2>&1 || true
    ctr_ tasks delete --force "${task}" >/dev/null 2>&1 || true
  done
}

# containerd shims outlive containerd by design; after the sandboxes are gone none should be left.
# Ours are the ones whose -address is our socket.
node_stop_shims() {
  local pid
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address ${CONTAINERD_SOCKET}( |$)" || true); do
    log "node: killing leftover containerd shim ${pid} ($(tr '\0' ' ' <"/proc/${pid}/cmdline" 2>/dev/null |
      grep -oE -- '-id [0-9a-f]{12}' || true))"
    kill -KILL "${pid}" 2>/dev/null || true
  done
}

# Every mount under the node's dirs, deepest first (pod volumes, rootfs, sandbox shm, netns).
node_unmount() {
  local target
  while read -r target; do
    umount "${target}" 2>/dev/null || umount -l "${target}" 2>/dev/null ||
      log "node: cannot unmount ${target}"
  done < <(findmnt -rn -o TARGET | grep -F "${NODE_DIR}/" | sort -r)
}

# drop_chain IPTABLES TABLE CHAIN: deletes the rules jumping to CHAIN, then CHAIN itself.
# (iptables-save output is read into a variable first: `iptables-save | grep -q` fails now and then
# under pipefail, when grep exits before iptables-save has written everything.)
drop_chain() {
  local cmd="$1" table="$2" chain="$3" rules rule
  rules="$("${cmd}-save" -t "${table}" 2>/dev/null)" || return 0
  grep -q "^:${chain} " <<<"${rules}" || return 0
  while read -r rule; do
    # the rule is iptables-save output, quoted comments included: eval splits it like a shell
    eval "${cmd} -t ${table} -D ${rule#-A }" 2>/dev/null || true
  done < <(grep -E -- "^-A [^ ]+ .*-j ${chain}( |$)" <<<"${rules}" || true)
  "${cmd}" -t "${table}" -F "${chain}" 2>/dev/null || true
  "${cmd}" -t "${table}" -X "${chain}" 2>/dev/null || true
}

# iptables rules of the node. kube-proxy removes its own (KUBE-SERVICES, ...); the kubelet's
# chains (KUBE-FIREWALL, KUBE-IPTABLES-HINT, KUBE-KUBELET-CANARY) stay after it exits and go here.
# The CNI plugins' rules (CNI-*) go with CNI DEL; what a failed DEL left is found by the network
# name in the rules' comments, then CNI chains nothing jumps to any more are deleted.
node_remove_iptables_rules() {
  "${BIN_DIR}/kube-proxy" --cleanup --config="${NODE_CONFIG_DIR}/kube-proxy.yaml" \
    >>"${LOG_DIR}/kube-proxy.log" 2>&1 || log "node: kube-proxy --cleanup failed (see its log)"
  local cmd table chain rule rules
  for cmd in iptables ip6tables; do
    command -v "${cmd}" >/dev/null || continue
    for table in filter nat mangle; do
      for chain in KUBE-FIREWALL KUBE-IPTABLES-HINT KUBE-KUBELET-CANARY; do
        drop_chain "${cmd}" "${table}" "${chain}"
      done
    done
  done
  for table in nat filter; do
    rules="$(iptables-save -t "${table}")"
    while read -r rule; do
      eval "iptables -t ${table} -D ${rule#-A }" 2>/dev/null || true
    done < <(grep -E '^-A .*name: \\"pgkeeper\\"' <<<"${rules}" || true)
    rules="$(iptables-save -t "${table}")"
    while read -r chain; do
      grep -qE -- "-j ${chain}( |$)" <<<"${rules}" || drop_chain iptables "${table}" "${chain}"
    done < <(sed -nE 's/^:(CNI-[0-9a-f]+) .*/\1/p' <<<"${rules}")
  done
}

node_remove_network() {
  local link
  # Pod veths whose namespace is already gone have been deleted with it; any still attached go.
  for link in $(ip -o link show master "${POD_BRIDGE}" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    ip link del "${link}" 2>/dev/null || true
  done
  ip link del "${POD_BRIDGE}" 2>/dev/null || true
  ip link del "${NODE_LINK}" 2>/dev/null || true # its address and the service route go with it
  # No pod holds an address any more; stale reservations would leak IPs across restarts.
  rm -rf "${NODE_DIR}/cni-ipam"
}

# The kubelet's cgroups (cgroupfs driver): empty once every container is gone. A container whose
# sandbox could not be removed through the CRI (containerd had died) still runs in one after its
# shim was killed: it is killed here, last resort.
node_remove_cgroups() {
  local dir pids
  pids="$(find /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods -name cgroup.procs \
    -exec cat {} + 2>/dev/null | sort -u || true)"
  if [[ -n "${pids}" ]]; then
    log "node: killing processes left in the kubelet's cgroups: ${pids//$'\n'/ }"
    # shellcheck disable=SC2086 # one PID per word
    kill -KILL ${pids} 2>/dev/null || true
    sleep 1
  fi
  for dir in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [[ -d "${dir}" ]] || continue
    find "${dir}" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

# Pod log symlinks the kubelet keeps in /var/log/containers (a fixed path) point into our
# podLogsDir; the containers are gone, so are they.
node_remove_log_links() {
  local link
  for link in /var/log/containers/*.log; do
    [[ -L "${link}" && "$(readlink "${link}")" == "${NODE_DIR}/"* ]] && rm -f "${link}"
  done
  return 0
}

# Stops the node and removes what it made on the host. Idempotent; a no-op without a node.
node_down() {
  local name started=0
  for name in "${NODE_COMPONENTS[@]}"; do [[ ! -e "$(pid_file "${name}")" ]] || started=1; done
  [[ "${started}" == 1 || -e "${NODE_MARKER}" ]] || return 0
  stop_component objectstore
  stop_component local-path-provisioner
  stop_component kubelet
  node_remove_pods
  stop_component kube-proxy
  stop_component coredns
  stop_component containerd
  stop_component registry
  # Its manifests went with the process: the blobs alone are garbage (the next `up` pushes again).
  rm -rf "${REGISTRY_DATA_DIR}"
  for name in "${NODE_COMPONENTS[@]}"; do rm -f "$(pid_file "${name}")"; done
  [[ -e "${NODE_MARKER}" ]] || return 0
  node_stop_shims
  node_remove_cgroups
  node_unmount
  node_remove_iptables_rules
  node_remove_network
  node_remove_log_links
  rm -f "${NODE_MARKER}"
  log "node: host network, mounts and rules removed"
}
