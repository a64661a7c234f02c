#!/usr/bin/env bash
# Builds the two tiny images of the node tier, from Debian packages:
#   localhost/pgkeeper/pause:1    the sandbox ("pause") image containerd's `sandbox_image` names:
#                                 catatonit, a static init that podman uses for the same job, run
#                                 in pause mode (-P): it sleeps, reaps zombies of a shared PID
#                                 namespace, and exits on a signal.
#   localhost/pgkeeper/busybox:1  static busybox with its applets linked in /bin (sh, mkdir, rm,
#                                 ...): the helper image of local-path-provisioner.
#
# Idempotent: each archive is keyed by the .deb it comes from and these scripts.
# Usage: hack/images/pause.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_tools umoci:umoci jq:jq

build_pause() {
  local start deb key rootfs
  start="$(now)"
  deb="$(fetch_deb catatonit)"
  key="$({
    scripts_hash "${BASH_SOURCE[0]}"
    sha256sum "${deb}"
  } | hash_stdin)"
  lock_image pause
  if is_current pause "${key}"; then
    log "pause: up to date ($(size_mib "$(archive_path pause)"), $(elapsed "${start}") s)"
    return 0
  fi
  rootfs="$(mktemp -d "${IMAGE_TMP}/pgkeeper-pause.XXXXXX")"
  dpkg-deb --fsys-tarfile "${deb}" | tar -xf - -C "${rootfs}" ./usr/bin/catatonit
  mv "${rootfs}/usr/bin/catatonit" "${rootfs}/pause"
  rm -rf "${rootfs:?}/usr"
  # Same user as the upstream pause image; the process needs no privilege.
  pack_image "${rootfs}" pause "${REF_PAUSE}" \
    --config.entrypoint /pause --config.entrypoint -P --config.user 65535:65535
  rm -rf "${rootfs}"
  mark_built pause "${key}"
  log "pause: built ${REF_PAUSE} ($(size_mib "$(archive_path pause)"), $(elapsed "${start}") s)"
}

build_busybox() {
  local start deb key rootfs
  start="$(now)"
  deb="$(fetch_deb busybox-static)"
  key="$({
    scripts_hash "${BASH_SOURCE[0]}"
    sha256sum "${deb}"
  } | hash_stdin)"
  lock_image busybox
  if is_current busybox "${key}"; then
    log "busybox: up to date ($(size_mib "$(archive_path busybox)"), $(elapsed "${start}") s)"
    return 0
  fi
  rootfs="$(mktemp -d "${IMAGE_TMP}/pgkeeper-busybox.XXXXXX")"
  install_busybox "${rootfs}" "${deb}"
  write_users "${rootfs}" nobody:65534:65534:/nonexistent
  mkdir -p "${rootfs}/root" "${rootfs}/tmp" "${rootfs}/var/tmp"
  chmod 1777 "${rootfs}/tmp" "${rootfs}/var/tmp"
  chmod 0700 "${rootfs}/root"
  pack_image "${rootfs}" busybox "${REF_BUSYBOX}" \
    --config.env PATH=/usr/sbin:/usr/bin:/sbin:/bin --config.cmd sh
  rm -rf "${rootfs}"
  mark_built busybox "${key}"
  log "busybox: built ${REF_BUSYBOX} ($(size_mib "$(archive_path busybox)"), $(elapsed "${start}") s)"
}

build_pause
build_busybox
