#!/usr/bin/env bash
# Builds the Kubernetes binaries of the local cluster from the wrapper module (kube/go.mod) into a
# cache outside the repo, and installs etcd from Debian when it is missing.
#
# Idempotent: a binary is rebuilt only when its inputs (go.mod, go.sum, Go version, build flags)
# changed, so a warm run takes about a second.
#
# Usage: hack/cluster/build.sh [component...]    (default: every entry of KUBE_COMPONENTS)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Built from k8s.io/kubernetes/cmd/<name>. Each entry must also be a `tool` of kube/go.mod so that
# `go mod tidy` keeps its dependencies in go.mod/go.sum. To add one (kubelet, kube-proxy):
#   append it here, then: cd hack/cluster/kube && go mod edit -tool=k8s.io/kubernetes/cmd/<name> \
#     && go mod tidy
# (not `go get -tool`: without a version it upgrades k8s.io/kubernetes to the newest release.)
KUBE_COMPONENTS=(kube-apiserver kube-controller-manager kube-scheduler kubectl)

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

build_one() {
  local name="$1" out="${BIN_DIR}/$1" stamp="${BIN_DIR}/.$1.stamp" hash start
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

# Debian's etcd-server (3.4.23) is the storage backend. Its packaged service listens on 2379;
# the cluster uses other ports, and a service we just installed is stopped if systemd started it.
ensure_etcd() {
  if command -v etcd >/dev/null; then
    return
  fi
  local sudo=()
  [[ "$(id -u)" == 0 ]] || sudo=(sudo)
  log "etcd: installing the Debian package etcd-server ..."
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server >&2; then
    "${sudo[@]}" apt-get update >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server >&2
  fi
  if [[ -d /run/systemd/system ]]; then
    "${sudo[@]}" systemctl disable --now etcd >&2 || true
  fi
  log "etcd: $(etcd --version | head -1)"
}

main() {
  local components=("$@") version build_date started="${SECONDS}"
  ((${#components[@]})) || components=("${KUBE_COMPONENTS[@]}")

  version="$(kube_version)"
  build_date="$(cd "${WRAPPER_DIR}" && go list -m \
    -f '{{with .Time}}{{.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' k8s.io/kubernetes)"
  BIN_DIR="$(kube_bin_dir)"
  LDFLAGS="-s -w $(version_ldflags "${version}" "${build_date:-1970-01-01T00:00:00Z}")"
  # -mod=readonly: go.mod/go.sum are complete (tidy), so a build never rewrites the repo.
  GO_FLAGS=(-trimpath -mod=readonly)

  mkdir -p "${BIN_DIR}"
  # One build at a time per cache: concurrent `up`s would otherwise race on the same outputs.
  exec 9>"${BIN_DIR}/.lock"
  flock 9

  check_tools_declared "${components[@]}"
  log "Kubernetes ${version} -> ${BIN_DIR}"
  for name in "${components[@]}"; do
    build_one "${name}"
  done
  ensure_etcd
  log "build done in $((SECONDS - started)) s"
}

main "$@"
