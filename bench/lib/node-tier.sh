# shellcheck shell=bash
# Sourced by the benches that need real pods (bench/failover, bench/fleet): builds the images,
# brings the cluster up with its node like `npm run test:e2e` (stopped again when the bench
# exits), and exports where `pepr deploy`'s operator finds pgkeeper's PostgreSQL images.
source hack/cluster/use.sh
source hack/need.sh
export PGKEEPER_NODE=1
stop_cluster_on_exit always
bash hack/images/build-all.sh
use_cluster
need psql postgresql-client
export PGKEEPER_IMAGE_REPOSITORY="${PGKEEPER_REGISTRY:?the cluster exports no PGKEEPER_REGISTRY}/pgkeeper"
