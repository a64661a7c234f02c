#!/usr/bin/env bash
# Builds localhost/pgkeeper/postgres:<major>, an instance image of the local cluster, from the
# Debian suite that ships that major (15: bookworm, 17: trixie, 18: forky; POSTGRES_SUITES in
# lib.sh): `debootstrap --variant=minbase --include=postgresql-<major>,pgbackrest <suite>`,
# upgraded from <suite>-updates and <suite>-security, then trimmed.
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
# Idempotent: keyed by these scripts, the mirror and the candidate versions of postgresql-<major>
# and pgbackrest in the suite's package lists, which are kept apart from the host's apt
# (suite_apt in lib.sh; refreshed daily; PGKEEPER_IMAGES_FORCE=1 refreshes them and rebuilds).
# PGKEEPER_POSTGRES_KEEP_JIT=1 keeps LLVM (JIT), which this image drops by default (see trim).
# The metrics sidecar (ADR 0043) runs prometheus-postgres-exporter from the same suite, taken from
# its package without installing it: its maintainer scripts would add a system user (which could
# take uid 999) and a service, and bookworm's depends on an init system.
# Usage: hack/images/postgres.sh [major...]   (default: every major of POSTGRES_SUITES)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if (($# > 1)); then
  for major in "$@"; do bash "${BASH_SOURCE[0]}" "${major}"; done
  exit 0
elif (($# == 0)); then
  for major in "${POSTGRES_MAJORS[@]}"; do bash "${BASH_SOURCE[0]}" "${major}"; done
  exit 0
fi
PG_MAJOR="$1"
[[ -n "${POSTGRES_SUITES[${PG_MAJOR}]:-}" ]] ||
  die "no Debian suite here ships PostgreSQL ${PG_MAJOR}; majors: ${POSTGRES_MAJORS[*]}"
DEBIAN_SUITE="${POSTGRES_SUITES[${PG_MAJOR}]}"
REF="$(postgres_ref "${PG_MAJOR}")"
NAME="postgres-${PG_MAJOR}"
PG_UID=999
KEEP_JIT="${PGKEEPER_POSTGRES_KEEP_JIT:-0}"
PG_BINDIR="/usr/lib/postgresql/${PG_MAJOR}/bin"
# What debootstrap installs on top of minbase (with their dependencies); each one's candidate
# version is part of the key.
PACKAGES=("postgresql-${PG_MAJOR}" pgbackrest)
# Packages whose one program is copied into the image (extract); their versions are keyed too.
EXPORTER_PACKAGE=prometheus-postgres-exporter
EXPORTER=/usr/bin/prometheus-postgres-exporter
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
  # A major upgrade (upgrade.sh, ADR 0041): exporting this major's programs, and converting to it.
  cp cut du stat awk wc tr head tail ldd "${PG_BINDIR}/pg_config" "${PG_BINDIR}/pg_upgrade"
  "${PG_BINDIR}/pg_dumpall"
  # The metrics sidecar (ADR 0043).
  "${EXPORTER}"
)

in_root() { chroot "${ROOTFS}" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }

bootstrap() {
  local mirror="$1" include script
  include="$(IFS=, && printf '%s' "${PACKAGES[*]}")"
  mkdir -p "${IMAGE_CACHE}/debootstrap"
  # --cache-dir keeps the .debs, so a rebuild after a script change downloads nothing. Two stages
  # so that dpkg runs with force-unsafe-io (no fsync per file: several times faster on a busy
  # disk, and a half-built rootfs is thrown away anyway).
  # A debootstrap older than the suite has no script for it; the testing suite's is `sid`'s.
  script="/usr/share/debootstrap/scripts/${DEBIAN_SUITE}"
  [[ -e "${script}" ]] || script=/usr/share/debootstrap/scripts/sid
  debootstrap --foreign --variant=minbase --include="${include}" \
    --cache-dir="${IMAGE_CACHE}/debootstrap" "${DEBIAN_SUITE}" "${ROOTFS}" "${mirror}" "${script}" \
    >"${BUILD_LOG}" 2>&1 || die "debootstrap failed; see ${BUILD_LOG}"
  printf 'force-unsafe-io\n' >"${ROOTFS}/etc/dpkg/dpkg.cfg.d/pgkeeper-unsafe-io"
  chroot "${ROOTFS}" /debootstrap/debootstrap --second-stage >>"${BUILD_LOG}" 2>&1 ||
    die "debootstrap --second-stage failed; see ${BUILD_LOG}"
}

# debootstrap knows one suite only; security fixes (PostgreSQL minor releases among them) come
# from <suite>-security. Only the two update suites' lists are fetched: the installed packages
# already are the newest of the main suite, so its large index would add nothing. The testing
# suite has no update suites (suite_has_updates).
upgrade() {
  local mirror="$1" security="$2" sources="${ROOTFS}/etc/apt/sources.list"
  if suite_has_updates "${DEBIAN_SUITE}"; then
    printf 'deb %s %s main\n' "${mirror}" "${DEBIAN_SUITE}-updates" \
      "${security}" "${DEBIAN_SUITE}-security" >"${sources}"
    # No service may start inside the chroot.
    printf '#!/bin/sh\nexit 101\n' >"${ROOTFS}/usr/sbin/policy-rc.d"
    chmod 0755 "${ROOTFS}/usr/sbin/policy-rc.d"
    in_root apt-get update -q >>"${BUILD_LOG}" 2>&1 || die "apt-get update failed; see ${BUILD_LOG}"
    in_root env DEBIAN_FRONTEND=noninteractive apt-get -y -q upgrade >>"${BUILD_LOG}" 2>&1 ||
      die "apt-get upgrade failed; see ${BUILD_LOG}"
    rm -f "${ROOTFS}/usr/sbin/policy-rc.d"
  fi
  rm -f "${ROOTFS}/etc/dpkg/dpkg.cfg.d/pgkeeper-unsafe-io"
  printf 'deb %s %s main\n' "${mirror}" "${DEBIAN_SUITE}" >"${sources}"
  if suite_has_updates "${DEBIAN_SUITE}"; then
    printf 'deb %s %s main\n' "${mirror}" "${DEBIAN_SUITE}-updates" \
      "${security}" "${DEBIAN_SUITE}-security" >>"${sources}"
  fi
}

# Moves the postgres user and group to 999:999 and re-owns what the package created for them.
# A system group already holding gid 999 (forky's base system gives it to lpadmin) swaps with
# postgres: it takes postgres's old gid, and its files follow it.
fix_user() {
  local old_uid old_gid taken parked=59999
  old_uid="$(in_root id -u postgres)"
  old_gid="$(in_root id -g postgres)"
  taken="$(in_root getent passwd "${PG_UID}" | cut -d: -f1 || true)"
  [[ -z "${taken}" || "${taken}" == postgres ]] || die "uid ${PG_UID} is taken by ${taken}"
  taken="$(in_root getent group "${PG_UID}" | cut -d: -f1 || true)"
  if [[ -n "${taken}" && "${taken}" != postgres ]]; then
    [[ -z "$(in_root getent group "${parked}")" ]] || die "gid ${parked} is taken"
    in_root groupmod -g "${parked}" postgres
    find "${ROOTFS}" -xdev -gid "${old_gid}" -exec chgrp -h "${parked}" {} +
    in_root groupmod -g "${old_gid}" "${taken}"
    find "${ROOTFS}" -xdev -gid "${PG_UID}" -exec chgrp -h "${old_gid}" {} +
    log "${NAME}: group ${taken} moved from gid ${PG_UID} to ${old_gid}"
    old_gid="${parked}"
  fi
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
  local llvm
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
    # Each suite has its own LLVM (bookworm 14, trixie 19, ...): purge whichever is installed.
    # shellcheck disable=SC2016 # a dpkg-query format, not a shell expansion
    # (dpkg-query exits 1 when a pattern matches nothing.)
    llvm="$({ in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'libllvm*' 'libz3-*' 2>/dev/null || true; } |
      awk '$1 == "ii" { print $2 }' | xargs)"
    if [[ -n "${llvm}" ]]; then
      # shellcheck disable=SC2086 # one word per package
      in_root dpkg --purge --force-depends ${llvm} >>"${BUILD_LOG}" 2>&1 ||
        die "could not remove ${llvm}; see ${BUILD_LOG}"
    fi
  fi
  # /run is a tmpfs or empty in a container; keep only the socket directory postgresql-common made.
  find "${ROOTFS}/run" -mindepth 1 -maxdepth 1 -not -name postgresql -exec rm -rf {} +
  # The host's resolver and name mean nothing in a pod (the kubelet mounts its own).
  : >"${ROOTFS}/etc/resolv.conf"
  printf 'localhost\n' >"${ROOTFS}/etc/hostname"
}

# The exporter's program, from its package (see the header), owned by root.
exporter() {
  local deb version
  version="$(suite_version "${DEBIAN_SUITE}" "${EXPORTER_PACKAGE}")"
  deb="$(fetch_suite_deb "${DEBIAN_SUITE}" "${EXPORTER_PACKAGE}" "${version}")"
  dpkg-deb --fsys-tarfile "${deb}" | tar -xf - -C "${ROOTFS}" ".${EXPORTER}"
  chown 0:0 "${ROOTFS}${EXPORTER}"
  chmod 0755 "${ROOTFS}${EXPORTER}"
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
  local cmd path libs missing=() unresolved=() pgbackrest want exporter
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
  exporter="$(as_postgres "${EXPORTER}" --version 2>&1 | head -n1)" ||
    die "${EXPORTER} --version as ${PG_UID}: ${exporter}"
  log "${NAME}: $(in_root "${PG_BINDIR}/postgres" --version), ${pgbackrest}, ${exporter} (uid ${PG_UID}), ${#REQUIRED_COMMANDS[@]} commands present, libraries resolved"
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
  for pkg in "${PACKAGES[@]}" "${EXPORTER_PACKAGE}"; do
    printf '%s=%s\n' "${pkg}" "$(suite_version "${DEBIAN_SUITE}" "${pkg}")"
  done
}

main() {
  local start mirror security versions version key step
  start="$(now)"
  ensure_tools debootstrap:debootstrap umoci:umoci jq:jq
  mirror="$(debian_mirror '')"
  security="$(debian_mirror -security)"
  suite_lists "${DEBIAN_SUITE}" "${mirror}" "${security}"
  versions="$(package_versions)"
  if grep -qE '=(\(none\))?$' <<<"${versions}"; then
    die "not in ${DEBIAN_SUITE}: $(grep -E '=(\(none\))?$' <<<"${versions}" | cut -d= -f1 | xargs)"
  fi
  version="$(sed -n "s/^postgresql-${PG_MAJOR}=//p" <<<"${versions}")"
  key="$({
    scripts_hash "${BASH_SOURCE[0]}"
    printf '%s\n' "${mirror}" "${security}" "${DEBIAN_SUITE}" "${versions}" "${KEEP_JIT}"
  } | hash_stdin)"
  lock_image "${NAME}"
  if is_current "${NAME}" "${key}"; then
    log "${NAME}: up to date (${versions//$'\n'/, }, $(size_mib "$(archive_path "${NAME}")"), $(elapsed "${start}") s)"
    return 0
  fi
  ROOTFS="$(mktemp -d "${IMAGE_TMP}/pgkeeper-postgres.XXXXXX")"
  trap cleanup EXIT
  : >"${BUILD_LOG}"
  log "${NAME}: building ${versions//$'\n'/, } from ${mirror}"
  for step in bootstrap upgrade fix_user trim exporter layout check; do
    step_start="$(now)"
    case "${step}" in
      bootstrap) bootstrap "${mirror}" ;;
      upgrade) upgrade "${mirror}" "${security}" ;;
      *) "${step}" ;;
    esac
    log "${NAME}: ${step} $(elapsed "${step_start}") s"
  done
  log "${NAME}: rootfs $(du -sh "${ROOTFS}" | cut -f1)"
  step_start="$(now)"
  pack_image "${ROOTFS}" "${NAME}" "${REF}" \
    --config.user "${PG_UID}:${PG_UID}" \
    --config.env "PATH=${PG_BINDIR}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --config.env "PG_MAJOR=${PG_MAJOR}" --config.env LANG=C.UTF-8 \
    --config.env "PGDATA=/var/lib/postgresql/data/pgdata" \
    --config.exposedports 5432/tcp --config.stopsignal SIGINT --config.cmd postgres \
    --config.label "org.opencontainers.image.version=${version}"
  log "${NAME}: pack $(elapsed "${step_start}") s"
  mark_built "${NAME}" "${key}"
  log "${NAME}: built ${REF} (${versions//$'\n'/, }, $(size_mib "$(archive_path "${NAME}")"), $(elapsed "${start}") s)"
}

main "$@"
