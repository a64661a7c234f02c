#!/usr/bin/env bash
# Imports the cached image archives into a containerd, under the references the project uses.
#
# Each archive's index names its manifest with the `io.containerd.image.name` annotation, so a plain
# `ctr images import` gives it its reference (`--index-name` is not needed; it would add a second
# image pointing at the index). Idempotent: an image whose manifest digest already matches the
# archive is skipped. The Kubernetes CRI plugin only sees the `k8s.io` namespace.
#
# Usage: hack/images/import.sh <containerd-address> [namespace] [name...]
#   containerd-address  the node's containerd socket, e.g. /run/pgkeeper/containerd/containerd.sock
#   namespace           default k8s.io
#   name                pause busybox postgres-15 controller-dev (default: every archive present)
# PGKEEPER_IMAGES_FORCE=1 re-imports unchanged images too.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

(($# >= 1)) || die "usage: $0 <containerd-address> [namespace] [name...]"
ADDRESS="$1"
NAMESPACE="${2:-k8s.io}"
shift $(($# >= 2 ? 2 : 1))
command -v ctr >/dev/null || die "ctr not found (Debian package containerd)"
[[ -S "${ADDRESS}" ]] || die "no containerd socket at ${ADDRESS}"

ctr_() { ctr --address "${ADDRESS}" --namespace "${NAMESPACE}" "$@"; }

# Digest of the image `ref` in containerd, empty when absent.
current_digest() {
  ctr_ images ls "name==$1" | awk -v ref="$1" '$1 == ref { print $3 }'
}

import_one() {
  local ref="$1" name="$2" archive want have start
  archive="$(archive_path "${name}")"
  start="$(now)"
  want="$(tar -xOf "${archive}" index.json | jq -r '.manifests[0].digest')"
  have="$(current_digest "${ref}")"
  if [[ "${have}" == "${want}" && "${IMAGES_FORCE}" != 1 ]]; then
    log "${ref}: already imported (${want:7:12})"
    return 0
  fi
  ctr_ images import --platform "linux/${ARCH}" "${archive}" >/dev/null
  have="$(current_digest "${ref}")"
  [[ "${have}" == "${want}" ]] || die "${ref}: imported ${archive} but containerd has '${have}'"
  log "${ref}: imported ${want:7:12} ($(size_mib "${archive}"), $(elapsed "${start}") s)"
}

main() {
  local ref name wanted=("$@") count=0
  for ref in "${IMAGE_REFS[@]}"; do
    name="${IMAGE_ARCHIVES[${ref}]}"
    if ((${#wanted[@]} > 0)); then
      [[ " ${wanted[*]} " == *" ${name} "* ]] || continue
    elif [[ ! -s "$(archive_path "${name}")" ]]; then
      log "${ref}: no archive $(archive_path "${name}") (run hack/images/build-all.sh); skipped"
      continue
    fi
    [[ -s "$(archive_path "${name}")" ]] || die "no archive for ${name}; run hack/images/build-all.sh"
    import_one "${ref}" "${name}"
    count=$((count + 1))
  done
  ((count > 0)) || die "nothing to import"
}

main "$@"
