#!/usr/bin/env bash
# Builds localhost/pgkeeper/postgres:15, the instance image of the local cluster, from Debian:
# `debootstrap --variant=minbase --include=postgresql-15,pgbackrest bookworm`, upgraded from
# bookworm-updates and bookworm-security, then trimmed.
#
# What the instance pods need from it (capabilities/database/specs): `/bin/sh /config/entrypoint.sh`
# and `probe.sh` run as uid/gid 999 with a read-only root file system; the scripts find the server
# programs in /usr/lib/postgresql/$PG_MAJOR/bin and call a handful of POSIX tools (checked below).
# Debian creates its postgres user with the next free system uid, so it is moved to 999:999 here:
# without a user name for the uid, initdb and postgres refuse to run.
#
# pgBackRest (docs/adr/0010) runs in the instance pods and the backup Jobs. Its default lock, log and
# spool paths are not writable on a read-only root: callers pass --lock-path=/tmp/pgbackrest and
# --log-level-file=off (or a writable --log-path), see README.md.
#
# Idempotent: keyed by these scripts, the mirror and the candidate versions of postgresql-15 and
# pgbackrest in this machine's apt lists (PGKEEPER_IMAGES_FORCE=1 rebuilds anyway, e.g. for other
# security updates).
# PGKEEPER_POSTGRES_KEEP_JIT=1 keeps LLVM (JIT), which this image drops by default (see trim).
# Usage: hack/images/postgres.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_MAJOR=15
NAME="postgres-${PG_MAJOR}"
PG_UID=999
KEEP_JIT="${PGKEEPER_POSTGRES_KEEP_JIT:-0}"
PG_BINDIR="/usr/lib/postgresql/${PG_MAJOR}/bin"
# What debootstrap installs on top of minbase (with their dependencies); each one's candidate
# version is part of the key.
PACKAGES=("postgresql-${PG_MAJOR}" pgbackrest)
# debootstrap's and apt's output; kept after a failure.
BUILD_LOG="${IMAGE_CACHE}/${NAME}.build.log"

# Every program the instance scripts (entrypoint, probe, backup) call, plus tar/gzip to unpack a
# base backup by hand, and pgBackRest. The build fails if one is missing from the image or cannot
# load one of its shared libraries (the trim removes packages with --force-depends).
REQUIRED_COMMANDS=(
  sh date sed printf chmod id getent ls rmdir rm mv touch sleep mkdir grep sort cat tar gzip
  "${PG_BINDIR}/postgres" "${PG_BINDIR}/initdb" "${PG_BINDIR}/pg_ctl" "${PG_BINDIR}/pg_isready"
  "${PG_BINDIR}/pg_basebackup" "${PG_BINDIR}/pg_rewind" "${PG_BINDIR}/psql"
  "${PG_BINDIR}/pg_controldata" /usr/bin/pgbackrest
)

in_root() { chroot "${ROOTFS}" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

bootstrap() {
  local mirror="$1" include
  include="$(IFS=, && printf '%s' "${PACKAGES[*]}")"
  mkdir -p "${IMAGE_CACHE}/debootstrap"
  # --cache-dir keeps the .debs, so a rebuild after a script change downloads nothing. Two stages
  # so that dpkg runs with force-unsafe-io (no fsync per file: several times faster on a busy
  # disk, and a half-built rootfs is thrown away anyway).
  debootstrap --foreign --variant=minbase --include="${include}" \
    --cache-dir="${IMAGE_CACHE}/debootstrap" "${DEBIAN_SUITE}" "${ROOTFS}" "${mirror}" \
    >"${BUILD_LOG}" 2>&1 || die "debootstrap failed; see ${BUILD_LOG}"
  printf 'force-unsafe-io\n' >"${ROOTFS}/etc/dpkg/dpkg.cfg.d/pgkeeper-unsafe-io"
  chroot "${ROOTFS}" /debootstrap/debootstrap --second-stage >>"${BUILD_LOG}" 2>&1 ||
    die "debootstrap --second-stage failed; see ${BUILD_LOG}"
}

# debootstrap knows one suite only; security fixes (PostgreSQL minor releases among them) come
# from bookworm-security. Only the two update suites' lists are fetched: the installed packages
# already are the newest of the main suite, so its large index would add nothing.
upgrade() {
  local mirror="$1" security="$2"
  cat >"${ROOTFS}/etc/apt/sources.list" <<EOF
deb ${mirror} ${DEBIAN_SUITE}-updates main
deb ${security} ${DEBIAN_SUITE}-security main
EOF
  # No service may start inside the chroot.
  printf '#!/bin/sh\nexit 101\n' >"${ROOTFS}/usr/sbin/policy-rc.d"
  chmod 0755 "${ROOTFS}/usr/sbin/policy-rc.d"
  in_root apt-get update -q >>"${BUILD_LOG}" 2>&1 || die "apt-get update failed; see ${BUILD_LOG}"
  in_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q upgrade >>"${BUILD_LOG}" 2>&1 ||
    die "apt-get upgrade failed; see ${BUILD_LOG}"
  rm -f "${ROOTFS}/usr/sbin/policy-rc.d" "${ROOTFS}/etc/dpkg/dpkg.cfg.d/pgkeeper-unsafe-io"
  cat >"${ROOTFS}/etc/apt/sources.list" <<EOF
deb ${mirror} ${DEBIAN_SUITE} main
deb ${mirror} ${DEBIAN_SUITE}-updates main
deb ${security} ${DEBIAN_SUITE}-security main
EOF
}

# Moves the postgres user and group to 999:999 and re-owns what the package created for them.
fix_user() {
  local old_uid old_gid taken
  old_uid="$(in_root id -u postgres)"
  old_gid="$(in_root id -g postgres)"
  taken="$(in_root getent passwd "${PG_UID}" | cut -d: -f1 || true)"
  [[ -z "${taken}" || "${taken}" == postgres ]] || die "uid ${PG_UID} is taken by ${taken}"
  taken="$(in_root getent group "${PG_UID}" | cut -d: -f1 || true)"
  [[ -z "${taken}" || "${taken}" == postgres ]] || die "gid ${PG_UID} is taken by ${taken}"
  in_root groupmod -g "${PG_UID}" postgres
  in_root usermod -u "${PG_UID}" -g "${PG_UID}" postgres
  find "${ROOTFS}" -xdev -uid "${old_uid}" -exec chown -h "${PG_UID}" {} +
  find "${ROOTFS}" -xdev -gid "${old_gid}" -exec chgrp -h "${PG_UID}" {} +
  [[ "$(in_root id -u postgres):$(in_root id -g postgres)" == "${PG_UID}:${PG_UID}" ]] ||
    die "postgres is not ${PG_UID}:${PG_UID}"
}

# Drops what a container never uses. The package's default cluster (`main`, created by the
# postinst) and the snakeoil TLS key generated at install time must not ship in an image.
trim() {
  rm -rf "${ROOTFS}/etc/postgresql/${PG_MAJOR}/main" "${ROOTFS}/var/lib/postgresql/${PG_MAJOR}" \
    "${ROOTFS}/etc/ssl/private/ssl-cert-snakeoil.key" "${ROOTFS}/etc/ssl/certs/ssl-cert-snakeoil.pem"
  # Docs, manuals, translations (English messages only), locale sources other than C/POSIX.
  find "${ROOTFS}/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "${ROOTFS}/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "${ROOTFS}"/usr/share/{man,info,lintian,linda}/* "${ROOTFS}"/usr/share/locale/*
  if [[ -d "${ROOTFS}/usr/share/i18n/locales" ]]; then
    find "${ROOTFS}/usr/share/i18n/locales" -mindepth 1 -not -name C -not -name POSIX -delete
    find "${ROOTFS}/usr/share/i18n/charmaps" -mindepth 1 -not -name UTF-8.gz -delete
  fi
  # apt/dpkg caches and logs; the dpkg database stays so the image can still be inspected.
  rm -rf "${ROOTFS}"/var/lib/apt/lists/* "${ROOTFS}"/var/cache/apt/* "${ROOTFS}"/var/cache/debconf/*-old \
    "${ROOTFS}"/var/log/* "${ROOTFS}"/var/cache/ldconfig/* "${ROOTFS}"/tmp/* "${ROOTFS}"/root/.??*
  # LLVM (and z3, which only LLVM uses) is only PostgreSQL's JIT provider: about 140 MB, over a
  # third of the rootfs. Without llvmjit.so the server treats JIT as unavailable, silently.
  if [[ "${KEEP_JIT}" != 1 ]]; then
    rm -rf "${ROOTFS}/usr/lib/postgresql/${PG_MAJOR}/lib/llvmjit"* \
      "${ROOTFS}/usr/lib/postgresql/${PG_MAJOR}/lib/bitcode"
    in_root dpkg --purge --force-depends libllvm14 libz3-4 >>"${BUILD_LOG}" 2>&1 ||
      die "could not remove libllvm14 libz3-4; see ${BUILD_LOG}"
  fi
  # /run is a tmpfs or empty in a container; keep only the socket directory postgresql-common made.
  find "${ROOTFS}/run" -mindepth 1 -maxdepth 1 -not -name postgresql -exec rm -rf {} +
  # The host's resolver and name mean nothing in a pod (the kubelet mounts its own).
  : >"${ROOTFS}/etc/resolv.conf"
  printf 'localhost\n' >"${ROOTFS}/etc/hostname"
}

# Directories the official image has, owned by postgres: the data mount point and the default
# socket directory (the pods point the socket at an emptyDir; this one serves `docker run`-like
# uses where /run is writable). pgBackRest's default log directory, which its package made and
# the trim emptied with /var/log, comes back for the same uses; the pods never write there.
layout() {
  install -d -o "${PG_UID}" -g "${PG_UID}" -m 0700 "${ROOTFS}/var/lib/postgresql/data"
  install -d -o "${PG_UID}" -g "${PG_UID}" -m 2775 "${ROOTFS}/var/run/postgresql"
  install -d -o "${PG_UID}" -g "${PG_UID}" -m 0750 "${ROOTFS}/var/log/pgbackrest"
  install -d -o 0 -g 0 -m 1777 "${ROOTFS}/tmp"
  # mktemp made the root 0700; pack_image opens it up too, but `check` runs as 999 before that.
  chmod 0755 "${ROOTFS}"
}

# Runs a command in the rootfs as the pods do: uid/gid 999, no supplementary groups, empty env.
as_postgres() {
  chroot --userspec="${PG_UID}:${PG_UID}" --groups="${PG_UID}" "${ROOTFS}" \
    /usr/bin/env -i PATH="${PG_BINDIR}:/usr/bin:/bin" LANG=C.UTF-8 "$@"
}

check() {
  local cmd path libs missing=() unresolved=() pgbackrest want
  for cmd in "${REQUIRED_COMMANDS[@]}"; do
    path="$(in_root sh -c "command -v '${cmd}'")" || {
      missing+=("${cmd}")
      continue
    }
    # ldd exits 1 on a static or non-ELF file; only unresolved libraries count.
    libs="$(in_root ldd "${path}" 2>&1 || true)"
    if grep -q 'not found' <<<"${libs}"; then
      unresolved+=("${cmd}: $(awk '/not found/ { print $1 }' <<<"${libs}" | xargs)")
    fi
  done
  ((${#missing[@]} == 0)) || die "missing in the image: ${missing[*]}"
  ((${#unresolved[@]} == 0)) || die "shared libraries not found: ${unresolved[*]}"
  [[ "$(in_root id -un "${PG_UID}")" == postgres ]] || die "uid ${PG_UID} has no name"
  # `pgbackrest version` prints the upstream version of the installed package (no epoch, no
  # Debian revision), run as the pods' user.
  # shellcheck disable=SC2016 # a dpkg-query format, not a shell expansion
  want="$(in_root dpkg-query -W -f '${Version}' pgbackrest)"
  want="${want#*:}"
  want="pgBackRest ${want%-*}"
  pgbackrest="$(as_postgres pgbackrest version 2>&1)" || die "pgbackrest version as ${PG_UID}: ${pgbackrest}"
  [[ "${pgbackrest}" == "${want}" ]] || die "pgbackrest version as ${PG_UID}: '${pgbackrest}', expected '${want}'"
  log "postgres: $(in_root "${PG_BINDIR}/postgres" --version), ${pgbackrest} (uid ${PG_UID}), ${#REQUIRED_COMMANDS[@]} commands present, libraries resolved"
}

# debootstrap mounts /proc and /sys inside the rootfs and a failed run can leave them: unmount
# everything below it before deleting, and never cross into another file system.
cleanup() {
  [[ -n "${ROOTFS:-}" && -d "${ROOTFS}" ]] || return 0
  findmnt -rn -o TARGET | grep -F "${ROOTFS}/" | sort -r | xargs -r -n1 umount -l || true
  rm -rf --one-file-system "${ROOTFS}"
}

# `name=candidate` for each of PACKAGES, one a line; an empty candidate means unknown to apt.
package_versions() {
  local pkg
  for pkg in "${PACKAGES[@]}"; do
    printf '%s=%s\n' "${pkg}" "$(debian_version "${pkg}")"
  done
}

main() {
  local start mirror security versions version key step
  start="$(now)"
  ensure_tools debootstrap:debootstrap umoci:umoci jq:jq
  mirror="$(debian_mirror '')"
  security="$(debian_mirror -security)"
  versions="$(package_versions)"
  if grep -qE '=(\(none\))?$' <<<"${versions}"; then
    apt-get update -q >/dev/null
    versions="$(package_versions)"
  fi
  if grep -qE '=(\(none\))?$' <<<"${versions}"; then
    die "not in this machine's apt lists: $(grep -E '=(\(none\))?$' <<<"${versions}" | cut -d= -f1 | xargs)"
  fi
  version="$(sed -n "s/^postgresql-${PG_MAJOR}=//p" <<<"${versions}")"
  key="$({
    scripts_hash "${BASH_SOURCE[0]}"
    printf '%s\n' "${mirror}" "${security}" "${DEBIAN_SUITE}" "${versions}" "${KEEP_JIT}"
  } | hash_stdin)"
  lock_image "${NAME}"
  if is_current "${NAME}" "${key}"; then
    log "postgres: up to date (${versions//$'\n'/, }, $(size_mib "$(archive_path "${NAME}")"), $(elapsed "${start}") s)"
    return 0
  fi
  ROOTFS="$(mktemp -d "${IMAGE_TMP}/pgkeeper-postgres.XXXXXX")"
  trap cleanup EXIT
  : >"${BUILD_LOG}"
  log "postgres: building ${versions//$'\n'/, } from ${mirror}"
  for step in bootstrap upgrade fix_user trim layout check; do
    step_start="$(now)"
    case "${step}" in
      bootstrap) bootstrap "${mirror}" ;;
      upgrade) upgrade "${mirror}" "${security}" ;;
      *) "${step}" ;;
    esac
    log "postgres: ${step} $(elapsed "${step_start}") s"
  done
  log "postgres: rootfs $(du -sh "${ROOTFS}" | cut -f1)"
  step_start="$(now)"
  pack_image "${ROOTFS}" "${NAME}" "${REF_POSTGRES}" \
    --config.user "${PG_UID}:${PG_UID}" \
    --config.env "PATH=${PG_BINDIR}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --config.env "PG_MAJOR=${PG_MAJOR}" --config.env LANG=C.UTF-8 \
    --config.env "PGDATA=/var/lib/postgresql/data/pgdata" \
    --config.exposedports 5432/tcp --config.stopsignal SIGINT --config.cmd postgres \
    --config.label "org.opencontainers.image.version=${version}"
  log "postgres: pack $(elapsed "${step_start}") s"
  mark_built "${NAME}" "${key}"
  log "postgres: built ${REF_POSTGRES} (${versions//$'\n'/, }, $(size_mib "$(archive_path "${NAME}")"), $(elapsed "${start}") s)"
}

main "$@"
