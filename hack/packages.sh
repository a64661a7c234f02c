#!/usr/bin/env bash
# Every Debian package a tier of `npm test` (or `npm start`) runs, installed in one apt
# transaction before anything else starts, so that no two tiers or builds running side by side
# ever wait on (or fail at) dpkg's lock. Idempotent: packages already installed cost nothing.
# The scripts that need one still check for it (hack/need.sh, the images' ensure_tools), so each
# also runs alone.
set -euo pipefail

PACKAGES=(
  # the postgres tier: servers, pgBackRest, the client
  postgresql-15 postgresql-client-15 pgbackrest
  # lint
  shellcheck
  # the control plane: etcd; the node: runtime, network, the kube-proxy's tools
  etcd-server containerd runc containernetworking-plugins iptables conntrack util-linux
  # local images: the root file systems and their packing
  debootstrap umoci jq
  # tests and tools: requests from the host
  curl
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$' ||
    missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
  echo "system packages: all ${#PACKAGES[@]} installed"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages (install them as root): ${missing[*]}" >&2
  exit 1
fi
echo "system packages: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null
# Debian starts the services it installs. The node tier runs its own containerd and the control
# plane its own etcd, on other ports: the packaged services just installed are stopped (as
# hack/cluster/build.sh does).
if [ -d /run/systemd/system ]; then
  for unit in containerd etcd; do
    case " ${missing[*]} " in *" ${unit/etcd/etcd-server} "*) systemctl disable --now "$unit" >/dev/null 2>&1 || true ;; esac
  done
fi
