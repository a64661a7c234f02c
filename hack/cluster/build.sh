#!/usr/bin/env bash
# Builds the Kubernetes binaries of the local cluster from the wrapper module (kube/go.mod) into a
# cache outside the repo, and installs etcd from Debian when it is missing. With the node tier
# (PGKEEPER_NODE=1, the default) also CoreDNS (coredns/go.mod), local-path-provisioner, crictl,
# versitygw (the object store) and the OCI registry (registry/go.mod) from the Go module proxy, and
# containerd, runc, the CNI plugins, iptables and conntrack from Debian.
#
# Idempotent: a binary is rebuilt only when its inputs (go.mod, go.sum, Go version, build flags)
# changed, so a warm run takes about a second.
#
# Usage: hack/cluster/build.sh [component...]
#   (default: every entry of KUBE_COMPONENTS, plus NODE_TOOLS with the node tier)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Built from k8s.io/kubernetes/cmd/<name>. Each entry must also be a `tool` of kube/go.mod so that
# `go mod tidy` keeps its dependencies in go.mod/go.sum. To add one (kubelet, kube-proxy):
#   append it here, then: cd hack/cluster/kube && go mod edit -tool=k8s.io/kubernetes/cmd/<name> \
#     && go mod tidy
# (not `go get -tool`: without a version it upgrades k8s.io/kubernetes to the newest release.)
KUBE_COMPONENTS=(kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy)

# The node tier's other Go programs, each pinned in lib.sh or its wrapper module (build_tool).
NODE_TOOLS=(coredns local-path-provisioner crictl versitygw registry)

# Static binaries like the upstream release (CGO off). One setting for every component, because
# mixing them would compile the whole shared dependency tree twice.
export CGO_ENABLED=0

# -ldflags -X values; without them /version reports v0.0.0. The build date is the release's
# publication time from the module proxy, so rebuilding gives the same binary.
version_ldflags() {
  local version="$1" build_date="$2" major minor pkg
  major="${version#v}" && major="${major%%.*}"
  minor="${version#v*.}" && minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    printf -- '-X %s.%s=%s ' \
      "${pkg}" gitVersion "${version}" "${pkg}" gitMajor "${major}" \
      "${pkg}" gitMinor "${minor}" "${pkg}" gitTreeState clean \
      "${pkg}" buildDate "${build_date}" "${pkg}" gitCommit ''
  done
}

# Fails early, with the fix, when a component is not declared as a tool: the read-only build
# would otherwise stop on a cryptic "missing go.sum entry".
check_tools_declared() {
  local declared name
  declared="$(cd "${WRAPPER_DIR}" && go list tool)"
  for name in "$@"; do
    grep -qx "k8s.io/kubernetes/cmd/${name}" <<<"${declared}" ||
      die "${name} is not a tool of ${WRAPPER_DIR}/go.mod; run there:" \
        "go mod edit -tool=k8s.io/kubernetes/cmd/${name} && go mod tidy"
  done
}

# Everything that changes the produced binary; a different hash means rebuild.
inputs_hash() {
  local name="$1"
  {
    cat "${WRAPPER_DIR}/go.mod" "${WRAPPER_DIR}/go.sum"
    go version
    printf '%s\n' "${name}" "${CGO_ENABLED}" "${GO_FLAGS[*]}" "${LDFLAGS}"
  } | sha256sum | cut -d' ' -f1
}

# One build of a binary at a time (a build ahead of the tests and a tier that needs it may ask
# for the same one): the second waits for the first and then finds it up to date. A lock per
# binary, so a tier waits only for what it needs.
lock_output() {
  exec 9>"$1.lock"
  flock 9
}

build_one() {
  local name="$1" out="${BIN_DIR}/$1" stamp="${BIN_DIR}/.$1.stamp" hash start
  lock_output "${out}"
  hash="$(inputs_hash "${name}")"
  if [[ -x "${out}" && -f "${stamp}" && "$(<"${stamp}")" == "${hash}" ]]; then
    log "${name}: up to date"
    return
  fi
  log "${name}: building ..."
  start="${SECONDS}"
  # Write to a temporary name first: an interrupted build never leaves a broken binary behind.
  (cd "${WRAPPER_DIR}" && go build "${GO_FLAGS[@]}" -ldflags "${LDFLAGS}" -o "${out}.tmp" \
    "k8s.io/kubernetes/cmd/${name}")
  mv -f "${out}.tmp" "${out}"
  printf '%s\n' "${hash}" >"${stamp}"
  log "${name}: built in $((SECONDS - start)) s ($(du -h "${out}" | cut -f1))"
}

# tool_source NAME: how a node tool is built, "wrapper DIR" (a wrapper module of ours, pinned by its
# go.mod) or "module PACKAGE@VERSION" (go install; the module has no replace directives), then
# the -ldflags -X that stamp its version.
tool_source() {
  case "$1" in
    coredns) printf 'wrapper %s\n' "${CLUSTER_DIR}/coredns" ;;
    registry) printf 'wrapper %s\n' "${CLUSTER_DIR}/registry" ;;
    local-path-provisioner)
      printf 'module github.com/rancher/local-path-provisioner@%s -X main.VERSION=%s\n' \
        "${LOCAL_PATH_PROVISIONER_VERSION}" "${LOCAL_PATH_PROVISIONER_VERSION}"
      ;;
    crictl)
      printf 'module sigs.k8s.io/cri-tools/cmd/crictl@%s -X sigs.k8s.io/cri-tools/pkg/version.Version=%s\n' \
        "${CRICTL_VERSION}" "${CRICTL_VERSION}"
      ;;
    versitygw)
      printf 'module github.com/versity/versitygw/cmd/versitygw@%s -X main.Version=%s\n' \
        "${VERSITYGW_VERSION}" "${VERSITYGW_VERSION}"
      ;;
    *) die "unknown component ${1}; known: ${KUBE_COMPONENTS[*]} ${NODE_TOOLS[*]}" ;;
  esac
}

# Same flags as the Kubernetes binaries (-trimpath, CGO off) so shared packages (golang.org/x/...,
# protobuf, ...) come from the same build cache entries.
build_tool() {
  local name="$1" out="${NODE_TOOLS_BIN_DIR}/$1" stamp="${NODE_TOOLS_BIN_DIR}/.$1.stamp"
  local kind target stamp_flags hash start tmp
  lock_output "${out}"
  read -r kind target stamp_flags <<<"$(tool_source "${name}")"
  hash="$({
    [[ "${kind}" != wrapper ]] || cat "${target}/go.mod" "${target}/go.sum" "${target}"/*.go
    go version
    # The wrapper's path is left out: its files are hashed above, and a checkout elsewhere (CI)
    # must not rebuild.
    printf '%s\n' "${name}" "${kind}" "${target#"${CLUSTER_DIR}/"}" "${CGO_ENABLED}" "${stamp_flags}"
  } | sha256sum | cut -d' ' -f1)"
  if [[ -x "${out}" && -f "${stamp}" && "$(<"${stamp}")" == "${hash}" ]]; then
    log "${name}: up to date"
    return
  fi
  log "${name}: building ${target##*/} ..."
  start="${SECONDS}"
  if [[ "${kind}" == wrapper ]]; then
    (cd "${target}" && go build -trimpath -mod=readonly -gcflags=all=-dwarf=false \
      -ldflags "-s -w ${stamp_flags}" \
      -o "${out}.tmp" .)
  else
    # go install is the only way to build a package@version outside a module; GOBIN is a scratch
    # directory so a failed build never leaves a half-written binary under the final name.
    tmp="$(mktemp -d "${NODE_TOOLS_BIN_DIR}/.gobin.XXXXXX")"
    GOBIN="${tmp}" go install -trimpath -gcflags=all=-dwarf=false -ldflags "-s -w ${stamp_flags}" \
      "${target}"
    mv -f "${tmp}/$(basename "${target%@*}")" "${out}.tmp"
    rm -rf "${tmp}"
  fi
  mv -f "${out}.tmp" "${out}"
  printf '%s\n' "${hash}" >"${stamp}"
  log "${name}: built in $((SECONDS - start)) s ($(du -h "${out}" | cut -f1))"
}

# apt_install PACKAGE...: installs Debian packages, refreshing the package lists only when needed.
apt_install() {
  local sudo=()
  [[ "$(id -u)" == 0 ]] || sudo=(sudo)
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=300 "$@" >&2; then
    "${sudo[@]}" apt-get update >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=300 "$@" >&2
  fi
}

# The node tier's runtime from Debian: containerd 1.6, runc, the CNI plugins (/usr/lib/cni),
# iptables (kube-proxy, CNI ipMasq) and conntrack (kube-proxy clears UDP flows with it). The
# packaged containerd service is disabled: the node tier runs its own containerd with its own
# config, socket and state, and a second containerd on the host would only add a second set of
# CNI/iptables changes.
ensure_node_packages() {
  local missing=() cmd
  for cmd in containerd:containerd runc:runc /usr/lib/cni/bridge:containernetworking-plugins \
    iptables:iptables conntrack:conntrack; do
    command -v "${cmd%%:*}" >/dev/null || missing+=("${cmd#*:}")
  done
  if ((${#missing[@]})); then
    log "node: installing the Debian packages ${missing[*]} ..."
    apt_install "${missing[@]}"
  fi
  if [[ -d /run/systemd/system ]] && systemctl is-enabled --quiet containerd 2>/dev/null; then
    log "node: disabling the Debian containerd service (the node tier runs its own containerd)"
    systemctl disable --now containerd >&2 || true
  fi
}

# Debian's etcd-server (3.4.23) is the storage backend. Its packaged service listens on 2379;
# the cluster uses other ports, and a service we just installed is stopped if systemd started it.
ensure_etcd() {
  if command -v etcd >/dev/null; then
    return
  fi
  log "etcd: installing the Debian package etcd-server ..."
  apt_install etcd-server
  if [[ -d /run/systemd/system ]]; then
    systemctl disable --now etcd >&2 || true
  fi
  log "etcd: $(etcd --version | head -1)"
}

main() {
  local components=("$@") kube=() tools=() version build_date started="${SECONDS}" name
  if ((${#components[@]} == 0)); then
    components=("${KUBE_COMPONENTS[@]}")
    [[ "${NODE_ENABLED}" != 1 ]] || components+=("${NODE_TOOLS[@]}")
  fi
  for name in "${components[@]}"; do
    if [[ " ${NODE_TOOLS[*]} " == *" ${name} "* ]]; then tools+=("${name}"); else kube+=("${name}"); fi
  done

  version="$(kube_version)"
  build_date="$(cd "${WRAPPER_DIR}" && go list -m \
    -f '{{with .Time}}{{.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' k8s.io/kubernetes)"
  BIN_DIR="$(kube_bin_dir)"
  LDFLAGS="-s -w $(version_ldflags "${version}" "${build_date:-1970-01-01T00:00:00Z}")"
  # -mod=readonly: go.mod/go.sum are complete (tidy), so a build never rewrites the repo.
  # No DWARF from the compiler either: the linker strips it anyway (-s -w), and a cold build of
  # the control plane is the longest step of a fresh `npm test`.
  GO_FLAGS=(-trimpath -mod=readonly "-gcflags=all=-dwarf=false")

  mkdir -p "${BIN_DIR}" "${NODE_TOOLS_BIN_DIR}"

  if ((${#kube[@]})); then
    check_tools_declared "${kube[@]}"
    log "Kubernetes ${version} -> ${BIN_DIR}"
  fi
  for name in "${kube[@]}"; do
    build_one "${name}"
  done
  for name in "${tools[@]}"; do
    build_tool "${name}"
  done
  ensure_etcd
  [[ "${NODE_ENABLED}" != 1 ]] || ensure_node_packages
  log "build done in $((SECONDS - started)) s"
}

main "$@"
