#!/usr/bin/env bash
# Unpacks Debian 13's postgresql-17 and the trixie libraries it needs into PGKEEPER_TRIXIE_ROOT
# (default /var/tmp/pgkeeper-trixie, readable by the postgres account), for
# hack/parameter-catalog/generate.ts. Nothing is installed: the programs are pointed at trixie's
# own loader and libraries with patchelf (Debian 12's glibc is older than they need).
# Usage: hack/parameter-catalog/unpack-trixie.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../need.sh
source "$(dirname "${BASH_SOURCE[0]}")/../need.sh"

ROOT="${PGKEEPER_TRIXIE_ROOT:-/var/tmp/pgkeeper-trixie}"
WORK="${ROOT}.apt"
PACKAGES=(postgresql-17 libc6 libldap2 libicu76 libsasl2-2 libssl3t64 libstdc++6 libgcc-s1
  libzstd1 liblz4-1 libxml2 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2
  libkeyutils1 libpam0g libsystemd0 libcap2 libselinux1 libpcre2-8-0 libuuid1 zlib1g liblzma5
  libaudit1 libcap-ng0)

need patchelf patchelf
mkdir -p "${WORK}/lists/partial" "${WORK}/cache/archives/partial" "${WORK}/debs"
printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main\n' \
  >"${WORK}/sources.list"
touch "${WORK}/status"
apt_() {
  apt-get -q -o Dir::Etc::SourceList="${WORK}/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="${WORK}/lists" -o Dir::State::Status="${WORK}/status" \
    -o Dir::Cache="${WORK}/cache" -o APT::Sandbox::User=root "$@"
}
apt_ update >/dev/null
(cd "${WORK}/debs" && apt_ download "${PACKAGES[@]}" >/dev/null)
rm -rf "${ROOT}"
mkdir -p "${ROOT}"
for deb in "${WORK}"/debs/*.deb; do dpkg-deb -x "${deb}" "${ROOT}"; done
libs="${ROOT}/lib/x86_64-linux-gnu:${ROOT}/usr/lib/x86_64-linux-gnu"
for program in initdb postgres; do
  # DT_RPATH (not RUNPATH): the libraries' own dependencies are searched there too.
  patchelf --force-rpath --set-interpreter "${ROOT}/usr/lib64/ld-linux-x86-64.so.2" --set-rpath "${libs}" \
    "${ROOT}/usr/lib/postgresql/17/bin/${program}"
done
chmod -R a+rX "${ROOT}"
"${ROOT}/usr/lib/postgresql/17/bin/postgres" --version
