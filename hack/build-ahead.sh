#!/usr/bin/env bash
# What the cluster tiers of `npm test` need, made while the tiers that need no cluster run
# (hack/test-all.sh starts it in the background; every part is also made on demand by the script
# that needs it, so this only moves work earlier).
#
#   builds: versitygw (the postgres tier's object store), the control plane (the integration
#           tier), then the node's parts (e2e); CPU-bound once go has fetched the modules
#   images: the pause, PostgreSQL and controller images (e2e), from Debian and npm; network- and
#           disk-bound, so it runs beside the Go builds
# Usage: hack/build-ahead.sh builds|images
set -euo pipefail
cd "$(dirname "$0")/.."
export PGKEEPER_NODE=1

case "${1:-}" in
  builds)
    bash hack/cluster/build.sh versitygw
    bash hack/cluster/build.sh kube-apiserver kube-controller-manager kube-scheduler kubectl
    bash hack/cluster/build.sh
    ;;
  images)
    bash hack/images/pause.sh
    bash hack/images/postgres.sh
    bash hack/images/controller.sh
    ;;
  *)
    echo "usage: $0 builds|images" >&2
    exit 2
    ;;
esac
