#!/usr/bin/env bash
# Unpacks a newer Debian suite's postgresql-<major> and the libraries it needs into
# /var/tmp/pgkeeper-<suite> (PGKEEPER_<SUITE>_ROOT overrides; readable by the postgres account), for
# hack/parameter-catalog/generate.ts. Nothing is installed: initdb and postgres are pointed at the
# suite's own loader and libraries with patchelf (Debian 12's glibc is older than they need).
# Usage: hack/parameter-catalog/unpack-debian.sh trixie 17 | forky 18
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../need.sh
source "$(dirname "${BASH_SOURCE[0]}")/../need.sh"

SUITE="${1:?usage: unpack-debian.sh SUITE MAJOR}"
MAJOR="${2:?usage: unpack-debian.sh SUITE MAJOR}"
root_var="PGKEEPER_${SUITE^^}_ROOT"
ROOT="${!root_var:-/var/tmp/pgkeeper-${SUITE}}"
WORK="${ROOT}.apt"
# What initdb and postgres link, and what those libraries link in turn; the names of the
# libraries whose soname moved between suites differ.
COMMON=(libc6 libpq5 libldap2 libsasl2-2 libssl3t64 libstdc++6 libgcc-s1 libzstd1 liblz4-1
  libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1 libpam0g
  libsystemd0 libcap2 libselinux1 libpcre2-8-0 libuuid1 zlib1g liblzma5 libaudit1 libcap-ng0)
case "${SUITE}" in
  trixie) PACKAGES=("${COMMON[@]}" libicu76 libxml2) ;;
  forky) PACKAGES=("${COMMON[@]}" libicu78 libxml2-16 libnuma1 liburing2) ;;
  *) echo "no package list for ${SUITE}" >&2 && exit 2 ;;
esac

need patchelf patchelf
mkdir -p "${WORK}/lists/partial" "${WORK}/cache/archives/partial" "${WORK}/debs"
printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian %s main\n' \
  "${SUITE}" >"${WORK}/sources.list"
touch "${WORK}/status"
apt_() {
  apt-get -q -o Dir::Etc::SourceList="${WORK}/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="${WORK}/lists" -o Dir::State::Status="${WORK}/status" \
    -o Dir::Cache="${WORK}/cache" -o APT::Sandbox::User=root "$@"
}
apt_ update >/dev/null
rm -f "${WORK}"/debs/*.deb
(cd "${WORK}/debs" && apt_ download "postgresql-${MAJOR}" "${PACKAGES[@]}" >/dev/null)
rm -rf "${ROOT}"
mkdir -p "${ROOT}"
for deb in "${WORK}"/debs/*.deb; do dpkg-deb -x "${deb}" "${ROOT}"; done
libs="${ROOT}/lib/x86_64-linux-gnu:${ROOT}/usr/lib/x86_64-linux-gnu"
for program in initdb postgres; do
  # DT_RPATH (not RUNPATH): the libraries' own dependencies are searched there too.
  patchelf --force-rpath --set-interpreter "${ROOT}/usr/lib64/ld-linux-x86-64.so.2" --set-rpath "${libs}" \
    "${ROOT}/usr/lib/postgresql/${MAJOR}/bin/${program}"
done
chmod -R a+rX "${ROOT}"
"${ROOT}/usr/lib/postgresql/${MAJOR}/bin/postgres" --version
