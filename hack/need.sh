# shellcheck shell=bash
# need COMMAND PACKAGE: installs the Debian package that provides COMMAND when it is missing
# (a fresh CI runner, as root). Sourced, never executed.
need() {
  command -v "$1" >/dev/null && return 0
  echo "$1 not found: installing $2 with apt-get" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=300 "$2" >/dev/null
}
