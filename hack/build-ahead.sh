#!/usr/bin/env bash
# What the cluster tiers of `npm test` need, made while the tiers that need no cluster run
# (hack/test-all.sh starts it in the background; every part is also made on demand by the script
# that needs it, so this only moves work earlier).
#
#   control-plane: the apiserver, controller manager, scheduler and kubectl (the integration
#           tier): CPU-bound once go has fetched the modules, and the longest wait of a cold run
#   node:   versitygw (the object store of the postgres tier and the node), the node's parts
#           and helm (e2e), built while the integration tier runs
#   images: the pause, PostgreSQL and controller images (e2e), from Debian and npm; network- and
#           disk-bound, so it runs beside the Go builds
# Usage: hack/build-ahead.sh control-plane|node|images
set -euo pipefail
cd "$(dirname "$0")/.."
export PGKEEPER_NODE=1

case "${1:-}" in
  control-plane)
    bash hack/cluster/build.sh kube-apiserver kube-controller-manager kube-scheduler kubectl
    ;;
  node)
    bash hack/cluster/build.sh versitygw
    bash hack/cluster/build.sh
    bash hack/helm-chart/helm.sh >/dev/null
    ;;
  images)
    bash hack/images/pause.sh
    bash hack/images/postgres.sh
    bash hack/images/controller.sh
    ;;
  *)
    echo "usage: $0 control-plane|node|images" >&2
    exit 2
    ;;
esac
