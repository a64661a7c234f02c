#!/usr/bin/env bash
# e2e tier: the local cluster with its node (real PostgreSQL pods, an object store), its smoke
# check, the e2e jest project, then a teardown that must leave no processes, mounts or network devices behind.
# CI_STRESS=1 runs the HA suite with 8 concurrent writers (PGKEEPER_E2E_WRITERS sets any number).
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/cluster/use.sh
source hack/need.sh

export PGKEEPER_NODE=1
# A control plane started without the node (the integration tier) is restarted with it.
if bash "$PGKEEPER_CLUSTER_SH" status >/dev/null 2>&1 &&
  ! bash "$PGKEEPER_CLUSTER_SH" status 2>/dev/null | grep -q '^kubelet'; then
  bash "$PGKEEPER_CLUSTER_SH" down
fi
stop_cluster_on_exit always

# The images the tests run (PostgreSQL, the controller): built once, cached, imported by `up`.
bash hack/images/build-all.sh
use_cluster
# Every operator of the tier (on the host, and the one `pepr deploy` installs) takes its
# PostgreSQL images from the cluster's registry: the kubelet pulls them over TLS, as in
# production, instead of finding them imported.
export PGKEEPER_IMAGE_REPOSITORY="${PGKEEPER_REGISTRY:?the cluster exports no PGKEEPER_REGISTRY}/pgkeeper"
# The registry's own Go tests (access rules, credentials, push round trip; under a second, its
# modules are in the cache since the cluster built it).
(cd hack/cluster/registry && go test ./...)
# The Helm chart's static checks (helm lint, template renders; a few seconds): the e2e tier
# installs it too.
bash hack/helm-chart/check.sh
# The node tier's own checks first (pods, Services, DNS, volumes, the object store from the host
# and from a pod): about 20 s, and a failure there names the part of the cluster that broke.
bash hack/cluster/node-smoke.sh
need psql postgresql-client
npx jest --selectProjects e2e --runInBand --verbose --testTimeout=600000 \
  --json --outputFile="${TEST_LOGS:-.work/test-logs}/e2e.json" "$@"
# RBAC against use (issue 15), on a whole run only: the grants the in-cluster test saved, and
# every request the operator made in the integration tier and here. `npm test` requires it
# (PGKEEPER_RBAC_AUDIT=required): there a skipped check is a failure, never a quiet pass.
audit_dir="${PGKEEPER_WORK:-.work}/audit"
if [ "$#" -eq 0 ] && [ -s "$audit_dir/integration.log" ] && [ -s "$audit_dir/granted.json" ]; then
  npx ts-node --transpile-only hack/rbac-audit/run.ts --granted "$audit_dir/granted.json" \
    --audit "$audit_dir/integration.log" --audit "$PGKEEPER_AUDIT_LOG"
elif [ "${PGKEEPER_RBAC_AUDIT:-}" = required ]; then
  echo "RBAC against use: required, and it cannot run: arguments ($#) given, or" \
    "$audit_dir/integration.log or $audit_dir/granted.json missing or empty" >&2
  exit 1
else
  echo "RBAC against use: skipped (needs a whole integration and e2e run)"
fi
