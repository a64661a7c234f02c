#!/usr/bin/env bash
# Pushes the cached PostgreSQL and controller image archives into a registry (the local cluster's,
# hack/cluster/registry), so that a node pulls them as it would in production.
#
# Each image goes under the project's reference without `localhost/`: localhost/pgkeeper/postgres:15
# becomes <registry>/pgkeeper/postgres:15, and the controller <registry>/pgkeeper/controller:dev.
# With PGKEEPER_PUSH_PRIVATE_COPY=1 (the local cluster's `up`), the PostgreSQL 15 archive also
# goes to <registry>/private/postgres:15 and <registry>/private/smoke/postgres:15, repositories its
# registry serves with credentials only (pull-secret tests). pause and busybox are not pushed: the node imports them
# (import.sh), the sandbox image must be local. Idempotent: a tag that already names the
# archive's digest is left alone, and blobs the registry has are not uploaded again.
#
# Usage: hack/images/push.sh <registry> <ca> <credentials>
#   registry     host:port, e.g. localhost:17295 ($PGKEEPER_REGISTRY of `cluster.sh env`)
#   ca           the CA certificate the registry's certificate chains to
#   credentials  file with one user:password line, mode 0600
# PGKEEPER_REGISTRY_BIN: the registry program (default: where hack/cluster/build.sh puts it).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

(($# == 3)) || die "usage: $0 <registry> <ca> <credentials>"
REGISTRY="$1"
CA="$2"
CREDENTIALS="$3"
REGISTRY_BIN="${PGKEEPER_REGISTRY_BIN:-${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}/node-tools/bin/registry}"
[[ -x "${REGISTRY_BIN}" ]] || die "no ${REGISTRY_BIN} (run hack/cluster/build.sh registry)"

# One "ARCHIVE REPOSITORY:TAG [LABEL]" line per image to push; a LABEL (KEY=VALUE) is added to the
# image's config, which makes another build of the same file system, under another digest.
push_targets() {
  local major ref
  for major in "${POSTGRES_MAJORS[@]}"; do
    ref="$(postgres_ref "${major}")"
    printf '%s %s\n' "${IMAGE_ARCHIVES[${ref}]}" "${ref#localhost/}"
  done
  printf '%s %s\n' "${IMAGE_ARCHIVES[${REF_CONTROLLER}]}" "${REF_CONTROLLER#localhost/}"
  # A second build of the 15 image (one more label, so another config, manifest and image ID on
  # the node): the e2e tier's minor upgrade changes spec.image to it (test/e2e/registry.ts).
  printf '%s %s %s\n' postgres-15 pgkeeper/postgres:15-next dev.pgkeeper.build=next
  # Two names: one for the node's smoke check, one for the e2e tests. A node that pulled an image
  # with credentials runs it for any pod that names it with IfNotPresent (the kubelet does not
  # check pull Secrets against cached images unless KubeletEnsureSecretPulledImages is on), so
  # the tests' name must be one nothing pulled before.
  if [[ "${PGKEEPER_PUSH_PRIVATE_COPY:-0}" == 1 ]]; then
    printf '%s %s\n' postgres-15 private/smoke/postgres:15 postgres-15 private/postgres:15
  fi
}

push_one() {
  local name="$1" target="${REGISTRY}/$2" label="${3:-}" archive digest start
  local extra=()
  archive="$(archive_path "${name}")"
  start="$(now)"
  [[ -z "${label}" ]] || extra=(--label "${label}")
  # The registry program prints the manifest digest; its errors go to stderr as they are.
  digest="$("${REGISTRY_BIN}" push --archive "${archive}" --ref "${target}" --ca "${CA}" \
    --credentials "${CREDENTIALS}" "${extra[@]}" </dev/null)" || die "${target}: push of ${archive} failed"
  log "${target}: ${digest:7:12} ($(size_mib "${archive}"), $(elapsed "${start}") s)"
}

main() {
  local name repository count=0 start
  start="$(now)"
  while read -r name repository label; do
    if [[ ! -s "$(archive_path "${name}")" ]]; then
      log "${REGISTRY}/${repository}: no archive $(archive_path "${name}") (run hack/images/build-all.sh); skipped"
      continue
    fi
    push_one "${name}" "${repository}" "${label}"
    count=$((count + 1))
  done < <(push_targets)
  log "${count} images in ${REGISTRY} ($(elapsed "${start}") s)"
}

main "$@"
