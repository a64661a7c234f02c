#!/usr/bin/env bash
# bench/admission: the local cluster (started if needed), then bench/admission/run.ts "$@".
# By default the webhooks run as users run them, in the admission Deployment `pepr deploy`
# installs: the node tier and pgkeeper's images are needed. With --operator dev (or --smoke) they
# run in `pepr dev` on this machine: the control plane alone, and port 3000 (one such run at a
# time on this machine, hence the lock shared with the tests; -o: what the command starts must
# not inherit and keep the lock).
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/cluster/use.sh
in_cluster=1
case " $* " in
  *" --operator dev "* | *" --smoke "*) in_cluster=0 ;;
esac
if [ "${in_cluster}" = 1 ]; then
  export PGKEEPER_NODE=1
  stop_cluster_on_exit started
  bash hack/images/build-all.sh
  use_cluster
  export PGKEEPER_IMAGE_REPOSITORY="${PGKEEPER_REGISTRY:?the cluster exports no PGKEEPER_REGISTRY}/pgkeeper"
  npx ts-node --transpile-only bench/admission/run.ts "$@"
else
  export PGKEEPER_NODE="${PGKEEPER_NODE:-0}"
  stop_cluster_on_exit started
  use_cluster
  flock -o /tmp/pgkeeper-port3000.lock npx ts-node --transpile-only bench/admission/run.ts "$@"
fi
