#!/usr/bin/env bash
# Builds helm from the Go module proxy into the cache when it is missing, then prints the binary's
# path (everything else goes to stderr), so a caller runs: helm="$(bash hack/helm-chart/helm.sh)".
# Only hack/helm-chart/check.sh needs helm; npm run build does not.
#
# helm.sh/helm/v4's go.mod has no replace directives, so `go install helm.sh/helm/v4/cmd/helm@v`
# builds it as released, without a wrapper module (unlike CoreDNS or Kubernetes). The flags are
# hack/cluster/build.sh's for its node tools (CGO off, -trimpath, no DWARF, -s -w), so shared
# packages come from the same Go build cache entries; to fold helm into that script, its
# tool_source line is HELM_PACKAGE@HELM_VERSION and helm_stamp_flags.
set -euo pipefail

HELM_VERSION=v4.3.2
HELM_PACKAGE=helm.sh/helm/v4/cmd/helm

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The -X flags of helm's Makefile for a release tag: without them `helm version` says "v4.3"
# with "unreleased" metadata. The module proxy knows no commit, so gitCommit stays empty.
helm_stamp_flags() {
  printf -- '-X helm.sh/helm/v4/internal/version.version=%s ' "${HELM_VERSION}"
  printf -- '-X helm.sh/helm/v4/internal/version.gitTreeState=clean'
}

helm_path() {
  printf '%s/bin/helm-%s\n' "${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}" "${HELM_VERSION}"
}

build_helm() {
  local out="$1" tmp start
  mkdir -p "$(dirname "${out}")"
  # Two callers at once (two checks in parallel): the second waits, then finds the binary.
  exec 9>"${out}.lock"
  flock 9
  [[ ! -x "${out}" ]] || return 0
  log "helm: building ${HELM_PACKAGE}@${HELM_VERSION} ..."
  start="${SECONDS}"
  # GOBIN is a scratch directory: a failed build never leaves a half-written binary under the
  # final name.
  tmp="$(mktemp -d "${out}.gobin.XXXXXX")"
  CGO_ENABLED=0 GOBIN="${tmp}" go install -trimpath -gcflags=all=-dwarf=false \
    -ldflags "-s -w $(helm_stamp_flags)" "${HELM_PACKAGE}@${HELM_VERSION}"
  mv -f "${tmp}/helm" "${out}"
  rm -rf "${tmp}"
  log "helm: built in $((SECONDS - start)) s ($(du -h "${out}" | cut -f1))"
}

main() {
  local out
  out="$(helm_path)"
  [[ -x "${out}" ]] || build_helm "${out}"
  printf '%s\n' "${out}"
}

main "$@"
