#!/usr/bin/env bash
# Lists what the local cluster left on this host after `cluster.sh down`: processes (recorded
# PIDs, our binaries working for this work dir, containerd shims, anything in the kubelet's
# cgroups), mounts under the work dir, the node's network devices, routes and network
# namespaces, kube-proxy/CNI iptables chains, the kubelet's cgroups, and the registry's blobs.
#
# Usage: hack/cluster/leftovers.sh    (exit 0: nothing left; exit 1: each leftover on stdout)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FOUND=0
report() {
  printf 'leftover %-8s %s\n' "$1" "$2"
  FOUND=1
}

# Binaries whose processes belong to a cluster; one is ours when its command line names our work
# dir (config, data dir, socket), so a cluster of another checkout on the same host is not ours.
is_cluster_binary() {
  case "$1" in
    "$(kube_bin_dir)"/* | "${NODE_TOOLS_BIN_DIR}"/*) return 0 ;;
    */etcd | */containerd | */containerd-shim-runc-v2 | */runc) return 0 ;;
  esac
  return 1
}

check_processes() {
  local file dir pid binary exe cmdline
  for file in "${PID_DIR}"/*.pid; do
    [[ -f "${file}" ]] || continue
    read -r pid binary <"${file}" || continue
    exe="$(readlink "/proc/${pid}/exe" 2>/dev/null)" || continue
    [[ "${exe% (deleted)}" == "${binary}" ]] &&
      report process "pid ${pid} ${binary} (recorded in ${file})"
  done
  for dir in /proc/[0-9]*; do
    pid="${dir#/proc/}"
    exe="$(readlink "${dir}/exe" 2>/dev/null)" || continue
    exe="${exe% (deleted)}"
    if is_cluster_binary "${exe}"; then
      cmdline="$(tr '\0' ' ' <"${dir}/cmdline" 2>/dev/null)" || continue
      [[ "${cmdline}" == *"${WORK_DIR}/"* ]] && report process "pid ${pid} ${cmdline:0:160}"
    elif grep -q ':/kubepods' "${dir}/cgroup" 2>/dev/null; then
      report process "pid ${pid} ${exe} (in a pod cgroup: $(grep -m1 -o '/kubepods[^ ]*' "${dir}/cgroup"))"
    fi
  done
}

check_mounts() {
  local target
  while read -r target; do
    report mount "${target}"
  done < <(findmnt -rn -o TARGET | grep -F "${WORK_DIR}/" || true)
}

check_network() {
  local link ns
  for link in "${NODE_LINK}" "${POD_BRIDGE}"; do
    ip link show "${link}" >/dev/null 2>&1 && report link "${link}"
  done
  # Pod veths left without their bridge carry the pod network's addresses in a namespace: those
  # namespaces are mounts under the work dir (containerd's netns_mounts_under_state_dir) or, for a
  # containerd configured otherwise, cni-* names in /run/netns.
  for ns in /run/netns/cni-*; do
    [[ -e "${ns}" ]] && report netns "${ns}"
  done
  local cidr route
  for cidr in "${SERVICE_CIDR}" "${POD_CIDR}"; do
    route="$(ip route show "${cidr}")"
    [[ -z "${route}" ]] || report route "${route}"
  done
}

check_iptables() {
  local save chain
  for save in iptables-save ip6tables-save; do
    command -v "${save}" >/dev/null || continue
    for chain in $("${save}" 2>/dev/null | sed -nE 's/^:((KUBE|CNI)-[A-Za-z0-9-]+) .*/\1/p' | sort -u); do
      report iptables "${save%-save} chain ${chain}"
    done
  done
}

check_cgroups() {
  local dir
  for dir in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [[ -d "${dir}" ]] && report cgroup "${dir}"
  done
  return 0
}

# The registry's blobs go with it: its manifests lived in its memory (node.sh's node_down).
check_data() {
  [[ ! -e "${REGISTRY_DATA_DIR}" ]] || report data "${REGISTRY_DATA_DIR}"
}

check_processes
check_mounts
check_network
check_iptables
check_cgroups
check_data
if ((FOUND)); then
  echo "leftovers found (work dir ${WORK_DIR})" >&2
  exit 1
fi
echo "no leftovers (work dir ${WORK_DIR})" >&2
