#!/usr/bin/env bash
# Prints the path of promtool (Prometheus's rule checker), taken from Debian's `prometheus`
# package without installing it (its maintainer scripts would add a user and a service), cached
# by version under the pgkeeper cache. The alert rules' tests run it (test/e2e/metrics.test.ts).
# Usage: hack/monitoring/promtool.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../images/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../images/lib.sh"

deb="$(fetch_deb prometheus)"
bin_dir="${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}/bin"
target="${bin_dir}/promtool-$(basename "${deb}" .deb)"
if [[ ! -x "${target}" ]]; then
  mkdir -p "${bin_dir}"
  scratch="$(mktemp -d)"
  trap 'rm -rf "${scratch}"' EXIT
  dpkg-deb --fsys-tarfile "${deb}" | tar -xf - -C "${scratch}" ./usr/bin/promtool
  mv "${scratch}/usr/bin/promtool" "${target}.partial"
  mv "${target}.partial" "${target}"
fi
printf '%s\n' "${target}"
