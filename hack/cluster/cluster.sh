#!/usr/bin/env bash
# A local Kubernetes cluster as plain host processes: the control plane (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler) and, unless PGKEEPER_NODE=0, one node (containerd,
# CoreDNS, kubelet, kube-proxy, local-path-provisioner; node.sh) so pods really run.
#
# Usage: hack/cluster/cluster.sh up|down|status|env
#   up      build what is missing, start what is not running, wait until the cluster is usable;
#           stdout carries only `export ...` lines: eval "$(hack/cluster/cluster.sh up)"
#   down    stop every component by its recorded PID (SIGTERM, then SIGKILL after a grace period);
#           the node's pods, mounts, network devices and iptables rules are removed too
#   status  pid, liveness and health of each component; exit 0 up, 1 degraded, 3 down
#   env     print the `export ...` lines (KUBECONFIG, PATH with kubectl, audit log path)
#
# Logs, PIDs, PKI and etcd data live in ${PGKEEPER_WORK:-<repo>/.work}/cluster; see README.md.
set -euo pipefail
set +m # components must not lead a process group, so `setsid` execs in place and $! is their PID
umask 077 # keys and kubeconfigs are readable by their owner only
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=pki.sh
source "${CLUSTER_DIR}/pki.sh"
# shellcheck source-path=SCRIPTDIR source=node.sh
source "${CLUSTER_DIR}/node.sh"
# shellcheck source-path=SCRIPTDIR source=await-exec.sh
source "${CLUSTER_DIR}/await-exec.sh"

CONTROL_PLANE=(etcd kube-apiserver kube-controller-manager kube-scheduler) # start order
COMPONENTS=("${CONTROL_PLANE[@]}")
[[ "${NODE_ENABLED}" != 1 ]] || COMPONENTS+=("${NODE_COMPONENTS[@]}")
TIMEOUT="${PGKEEPER_CLUSTER_TIMEOUT:-180}" # seconds, per wait
STOP_GRACE="${PGKEEPER_STOP_GRACE:-15}"    # seconds between SIGTERM and SIGKILL
BIN_DIR="$(kube_bin_dir)"

is_loopback() { [[ "$1" == 127.* || "$1" == ::1 ]]; }

component_binary() {
  case "$1" in
    etcd) readlink -f "$(command -v etcd)" ;;
    kube-apiserver | kube-controller-manager | kube-scheduler) printf '%s/%s\n' "${BIN_DIR}" "$1" ;;
    *) node_component_binary "$1" ;;
  esac
}

# The port that answers health checks; etcd also listens on its peer port (component_ports).
component_port() {
  case "$1" in
    etcd) echo "${ETCD_CLIENT_PORT}" ;;
    kube-apiserver) echo "${APISERVER_PORT}" ;;
    kube-controller-manager) echo "${CONTROLLER_MANAGER_PORT}" ;;
    kube-scheduler) echo "${SCHEDULER_PORT}" ;;
    kubelet) echo "${KUBELET_PORT}" ;;
    coredns) echo "${NODE_IP}:53" ;;
    objectstore) echo "${NODE_IP}:${OBJECTSTORE_PORT}" ;;
    registry) echo "127.0.0.1:${REGISTRY_PORT}" ;;
    containerd) echo "${CONTAINERD_SOCKET}" ;;
  esac
}

component_ports() {
  if is_node_component "$1"; then
    node_component_ports "$1"
    return
  fi
  component_port "$1"
  [[ "$1" != etcd ]] || echo "${ETCD_PEER_PORT}"
}

# Command-line flags per component, into the global array ARGS.
component_args() {
  local kc="${COMPONENT_KUBECONFIG_DIR}"
  case "$1" in
    etcd)
      local client="http://127.0.0.1:${ETCD_CLIENT_PORT}" peer="http://127.0.0.1:${ETCD_PEER_PORT}"
      ARGS=(--name=pgkeeper --data-dir="${ETCD_DATA_DIR}"
        --listen-client-urls="${client}" --advertise-client-urls="${client}"
        --listen-peer-urls="${peer}" --initial-advertise-peer-urls="${peer}"
        --initial-cluster="pgkeeper=${peer}" --logger=zap --log-outputs=stderr)
      ;;
    kube-apiserver)
      # Endpoints may not hold loopback IPs: with a loopback advertise address the lease
      # reconciler would fail every 10 s, so the `kubernetes` Service gets no endpoints. Advertise a
      # host IP (PGKEEPER_ADVERTISE_ADDRESS, the node tier) and they are reconciled as usual.
      local reconciler=lease bind=0.0.0.0
      if is_loopback "${ADVERTISE_ADDRESS}"; then reconciler=none bind=127.0.0.1; fi
      # shellcheck disable=SC2054 # commas inside flag values (Node,RBAC) are intended
      ARGS=(--etcd-servers="http://127.0.0.1:${ETCD_CLIENT_PORT}"
        --bind-address="${PGKEEPER_BIND_ADDRESS:-${bind}}" --advertise-address="${ADVERTISE_ADDRESS}"
        --secure-port="${APISERVER_PORT}" --endpoint-reconciler-type="${reconciler}"
        --tls-cert-file="${PKI_DIR}/apiserver.crt" --tls-private-key-file="${PKI_DIR}/apiserver.key"
        --client-ca-file="${PKI_DIR}/ca.crt"
        --kubelet-client-certificate="${PKI_DIR}/apiserver-kubelet-client.crt"
        --kubelet-client-key="${PKI_DIR}/apiserver-kubelet-client.key"
        --kubelet-preferred-address-types=InternalIP
        --service-account-issuer=https://kubernetes.default.svc.cluster.local
        --service-account-key-file="${PKI_DIR}/sa.pub"
        --service-account-signing-key-file="${PKI_DIR}/sa.key"
        --service-cluster-ip-range="${SERVICE_CIDR}"
        --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction
        --allow-privileged=true --profiling=false
        --audit-policy-file="${CLUSTER_DIR}/audit-policy.yaml" --audit-log-path="${AUDIT_LOG}")
      ;;
    kube-controller-manager)
      # A secure port (0 would be allowed) so that `status` can probe /healthz, which is always
      # allowed. No --authentication/authorization-kubeconfig: without a front-proxy CA in the
      # apiserver, delegated authentication logs "missing requestheader-client-ca-file" forever.
      ARGS=(--kubeconfig="${kc}/controller-manager.kubeconfig"
        --bind-address=127.0.0.1 --secure-port="${CONTROLLER_MANAGER_PORT}"
        --leader-elect=false --controllers='*' --use-service-account-credentials=true
        --cluster-name="${CLUSTER_NAME}" --root-ca-file="${PKI_DIR}/ca.crt"
        --service-account-private-key-file="${PKI_DIR}/sa.key"
        --cluster-signing-cert-file="${PKI_DIR}/ca.crt"
        --cluster-signing-key-file="${PKI_DIR}/ca.key" --profiling=false)
      ;;
    kube-scheduler)
      # Serving as for the controller-manager.
      ARGS=(--kubeconfig="${kc}/scheduler.kubeconfig"
        --bind-address=127.0.0.1 --secure-port="${SCHEDULER_PORT}"
        --leader-elect=false --profiling=false)
      ;;
    *) node_component_args "$1" ;;
  esac
}

# GET on the apiserver as admin; prints the body, fails on a non-2xx answer.
api_get() {
  curl -fsS --max-time 5 --cacert "${PKI_DIR}/ca.crt" \
    --cert "${PKI_DIR}/admin.crt" --key "${PKI_DIR}/admin.key" \
    "https://127.0.0.1:${APISERVER_PORT}$1"
}

# Quiet form for polling: success on a 2xx answer.
api_ok() { api_get "$1" >/dev/null 2>&1; }

component_healthy() {
  local port
  port="$(component_port "$1")"
  case "$1" in
    etcd) curl -fsS --max-time 3 "http://127.0.0.1:${port}/health" 2>/dev/null | grep -q '"health":"true"' ;;
    kube-apiserver) api_ok /readyz ;;
    kube-controller-manager | kube-scheduler)
      curl -fsSk --max-time 3 "https://127.0.0.1:${port}/healthz" >/dev/null 2>&1
      ;;
    *) node_component_healthy "$1" ;;
  esac
}

pid_file() { printf '%s/%s.pid\n' "${PID_DIR}" "$1"; }

# Prints the PID of a running component. The PID file holds "PID BINARY"; the process must still
# exist (not a zombie) and run that binary, so a reused PID is never signalled, and a cluster
# started before a version bump (another bin dir) can still be stopped.
running_pid() {
  local pid binary exe
  read -r pid binary 2>/dev/null <"$(pid_file "$1")" || return 1
  [[ -n "${pid}" && -r "/proc/${pid}/stat" ]] || return 1
  [[ "$(cut -d' ' -f3 "/proc/${pid}/stat" 2>/dev/null)" != Z ]] || return 1
  exe="$(readlink "/proc/${pid}/exe" 2>/dev/null)" || return 1
  [[ "${exe% (deleted)}" == "${binary}" ]] || return 1
  printf '%s\n' "${pid}"
}

# fail COMPONENT MESSAGE: reports the failure with the end of the component's log (from its
# latest start only, so an older run's output is not mistaken for the cause) and exits.
fail() {
  local name="$1" file="${LOG_DIR}/$1.log" from
  log "ERROR: $2"
  from="$(grep -n '^===== ' "${file}" 2>/dev/null | tail -n 1 | cut -d: -f1)"
  log "last lines of ${file}:"
  tail -n "+${from:-1}" "${file}" 2>/dev/null | tail -n "${PGKEEPER_LOG_LINES:-30}" >&2 || true
  exit 1
}

port_in_use() { [[ -n "$(ss -Hltn "sport = :$1")" ]]; }

# Before starting anything: every port of every component that is not running yet must be free,
# so a conflict is reported up front instead of leaving half a cluster behind.
check_ports_free() {
  local name port taken=0
  for name in "${COMPONENTS[@]}"; do
    running_pid "${name}" >/dev/null && continue
    for port in $(component_ports "${name}"); do
      if port_in_use "${port}"; then
        log "${name}: port ${port} is already in use: $(ss -Hltnp "sport = :${port}" | head -1)"
        taken=1
      fi
    done
  done
  ((taken == 0)) || die "ports taken; free them or move the cluster with PGKEEPER_*_PORT (README.md)"
}

start_component() {
  local name="$1" pid binary port mask
  if pid="$(running_pid "${name}")"; then
    log "${name}: already running (pid ${pid})"
    return
  fi
  component_args "${name}"
  printf '\n===== %s starting %s\n' "$(date -Is)" "${name}" >>"${LOG_DIR}/${name}.log"
  # setsid: the component outlives this script and the terminal (and its Ctrl-C).
  binary="$(component_binary "${name}")"
  port="$(component_port "${name}")"
  # The node's components get the usual umask: with this script's 077, containerd unpacks image
  # root directories as 0700 (non-root containers then cannot even load libc) and the kubelet
  # makes volume directories only root can read.
  mask="$(umask)"
  ! is_node_component "${name}" || mask=0022
  # 8>&-: the component must not inherit (and hold forever) the lock of serialize. The subshell
  # execs setsid, which execs the binary: $! is the component's PID.
  (umask "${mask}" && exec setsid "${binary}" "${ARGS[@]}") </dev/null >>"${LOG_DIR}/${name}.log" 2>&1 8>&- &
  pid=$!
  echo "${pid} ${binary}" >"$(pid_file "${name}")"
  # Until the execs are done the PID runs bash: running_pid would call it gone. If it really
  # ended, the wait that follows says so with its log.
  await_exec "${pid}" "${binary}" || true
  log "${name}: started (pid ${pid}${port:+, ${port}})"
}

# wait_until COMPONENT DESCRIPTION COMMAND...: polls COMMAND; fails early if COMPONENT died.
wait_until() {
  local name="$1" what="$2" deadline=$((SECONDS + TIMEOUT))
  shift 2
  until "$@"; do
    running_pid "${name}" >/dev/null || fail "${name}" "${name} exited while waiting for ${what}"
    ((SECONDS < deadline)) || fail "${name}" "timed out after ${TIMEOUT} s waiting for ${what}"
    sleep 1
  done
}

print_env() {
  printf 'export KUBECONFIG=%q\n' "${KUBECONFIG_PATH}"
  # shellcheck disable=SC2016 # ${PATH} is expanded by whoever evals this line
  printf 'export PATH=%q:"${PATH}"\n' "${BIN_DIR}"
  printf 'export PGKEEPER_AUDIT_LOG=%q\n' "${AUDIT_LOG}"
  [[ "${NODE_ENABLED}" != 1 ]] || node_print_env
}

# One `up` or `down` at a time per work dir: two test runs starting the cluster at once would
# otherwise both start the same component (a second kubelet, a second etcd on a taken port).
serialize() {
  mkdir -p "${WORK_DIR}"
  exec 8>"${WORK_DIR}/.cluster.lock"
  flock -n 8 && return
  log "waiting for another cluster.sh up/down on ${WORK_DIR} ..."
  flock -w "${TIMEOUT}" 8 || die "another cluster.sh up/down still runs after ${TIMEOUT} s"
}

cmd_up() {
  local started="${SECONDS}"
  serialize
  "${CLUSTER_DIR}/build.sh"
  mkdir -p "${LOG_DIR}" "${PID_DIR}" "${ETCD_DATA_DIR}"
  if [[ "${NODE_ENABLED}" == 1 ]]; then
    node_check_host
    node_reconcile_apiserver
    node_prepare_host
  fi
  ensure_pki
  write_kubeconfigs

  check_ports_free
  start_component etcd
  wait_until etcd "etcd /health" component_healthy etcd

  start_component kube-apiserver
  wait_until kube-apiserver "kube-apiserver /livez" api_ok /livez
  # /readyz includes the RBAC bootstrap (poststarthook/rbac/bootstrap-roles) and etcd.
  wait_until kube-apiserver "kube-apiserver /readyz" component_healthy kube-apiserver

  start_component kube-controller-manager
  start_component kube-scheduler
  wait_until kube-controller-manager "kube-controller-manager /healthz" \
    component_healthy kube-controller-manager
  wait_until kube-scheduler "kube-scheduler /healthz" component_healthy kube-scheduler

  # What a first workload needs, made by the controller-manager: the default ServiceAccount and the
  # CA bundle ConfigMap every pod mounts. The default namespace comes from the apiserver.
  wait_until kube-apiserver "namespace default" api_ok /api/v1/namespaces/default
  wait_until kube-controller-manager "ServiceAccount default/default" \
    api_ok /api/v1/namespaces/default/serviceaccounts/default
  wait_until kube-controller-manager "ConfigMap default/kube-root-ca.crt" \
    api_ok /api/v1/namespaces/default/configmaps/kube-root-ca.crt

  if [[ "${NODE_ENABLED}" == 1 ]]; then node_up; else node_forget; fi

  log "cluster up in $((SECONDS - started)) s: https://127.0.0.1:${APISERVER_PORT}"
  log "KUBECONFIG=${KUBECONFIG_PATH}"
  print_env
}

stop_component() {
  local name="$1" pid deadline
  if ! pid="$(running_pid "${name}")"; then
    rm -f "$(pid_file "${name}")"
    log "${name}: not running"
    return
  fi
  kill -TERM "${pid}" 2>/dev/null || true # it may have exited meanwhile
  deadline=$((SECONDS + STOP_GRACE))
  while running_pid "${name}" >/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if running_pid "${name}" >/dev/null; then
    log "${name}: still running after ${STOP_GRACE} s, sending SIGKILL"
    kill -KILL "${pid}" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while running_pid "${name}" >/dev/null; do
      ((SECONDS < deadline)) || die "${name}: pid ${pid} survived SIGKILL"
      sleep 0.2
    done
  fi
  rm -f "$(pid_file "${name}")"
  log "${name}: stopped (pid ${pid})"
}

# Stops whatever runs, whether or not PGKEEPER_NODE is set now: the node first (its teardown
# needs containerd, and the kubelet must not see its pods vanish while the apiserver is up), then
# the control plane.
cmd_down() {
  local i
  serialize
  node_down
  for ((i = ${#CONTROL_PLANE[@]} - 1; i >= 0; i--)); do
    stop_component "${CONTROL_PLANE[i]}"
  done
}

cmd_status() {
  local name pid alive health running=0 healthy=0
  printf '%-24s %-8s %-6s %s\n' COMPONENT PID ALIVE HEALTH
  for name in "${COMPONENTS[@]}"; do
    pid=- alive=no health=-
    if pid="$(running_pid "${name}")"; then
      alive=yes running=$((running + 1)) health=failing
      if component_healthy "${name}"; then health=ok healthy=$((healthy + 1)); fi
    else
      pid=-
    fi
    printf '%-24s %-8s %-6s %s\n' "${name}" "${pid}" "${alive}" "${health}"
  done
  if [[ "${NODE_ENABLED}" == 1 ]] && ((healthy == ${#COMPONENTS[@]})) && ! node_ready; then
    echo "node ${NODE_NAME}: not Ready (or still tainted)"
    healthy=0
  fi
  if ((healthy == ${#COMPONENTS[@]})); then
    echo "cluster: up (https://127.0.0.1:${APISERVER_PORT}, KUBECONFIG=${KUBECONFIG_PATH})"
  elif ((running == 0)); then
    echo "cluster: down"
    return 3
  else
    echo "cluster: degraded"
    return 1
  fi
}

cmd_env() {
  [[ -f "${KUBECONFIG_PATH}" ]] || log "warning: ${KUBECONFIG_PATH} does not exist yet (run up)"
  print_env
}

case "${1:-}" in
  up | down | status | env) "cmd_$1" ;;
  *)
    echo "usage: $0 up|down|status|env" >&2
    exit 2
    ;;
esac
