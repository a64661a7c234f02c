#!/usr/bin/env bash
# Unpacks the PostgreSQL release tarballs Debian ships as source packages (the .orig.tar.bz2
# is upstream's release tarball; apt checks it against the suite's signed index) into
# PGKEEPER_SRC_ROOT (default /var/tmp/pgkeeper-src), for from-source.ts --check-against:
# 15 from Debian 12 and 18 from forky, the same minors as the servers pg15.json and pg18.json
# come from. Nothing is installed. (trixie's 17 source is not served by the package mirror.)
# Usage: hack/parameter-catalog/get-sources.sh
set -euo pipefail

ROOT="${PGKEEPER_SRC_ROOT:-/var/tmp/pgkeeper-src}"
mkdir -p "${ROOT}"
for pair in bookworm:15 forky:18; do
  suite="${pair%%:*}" major="${pair##*:}" work="${ROOT}/apt-${pair%%:*}"
  mkdir -p "${work}/lists/partial" "${work}/cache/archives/partial"
  touch "${work}/status"
  printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian %s main\n' \
    "${suite}" >"${work}/sources.list"
  apt_() {
    apt-get -q -o Dir::Etc::SourceList="${work}/sources.list" -o Dir::Etc::SourceParts=/dev/null \
      -o Dir::State::Lists="${work}/lists" -o Dir::State::Status="${work}/status" \
      -o Dir::Cache="${work}/cache" -o APT::Sandbox::User=root "$@"
  }
  apt_ update >/dev/null
  (cd "${ROOT}" && apt_ source --download-only "postgresql-${major}" >/dev/null)
  tarballs=("${ROOT}/postgresql-${major}_"*.orig.tar.bz2)
  tarball="${tarballs[-1]}"
  version="${tarball##*_}"
  top="postgresql-${version%.orig.tar.bz2}"
  rm -rf "${ROOT:?}/${top}"
  tar -xjf "${tarball}" -C "${ROOT}" "${top}/configure" "${top}/src"
  echo "${ROOT}/${top}"
done
