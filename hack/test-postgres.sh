#!/usr/bin/env bash
# PostgreSQL tier: the operator's SQL edge (capabilities/database/instance/instance-sql.ts) against real
# PostgreSQL 15 servers started by the tests on loopback ports 25432..25499, in temporary
# directories, and WAL archiving into an object store on one of those ports. No cluster needed. On a machine without PostgreSQL 15 (a fresh Debian 12 CI
# runner, as root) this installs it with apt first, which also creates the `postgres` account the
# servers run as when the tests run as root. The parameter catalogs are checked against the
# servers of pgkeeper's instance images, one per major (built here if missing, as root: they run
# under chroot; `npm test` has built them before this tier starts).
set -euo pipefail
cd "$(dirname "$0")/.."

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
if [ ! -x "$PG_BIN/postgres" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "PostgreSQL 15 not found in $PG_BIN: install postgresql-15 (or set PG_BIN)" >&2
    exit 1
  fi
  echo "PostgreSQL 15 not found in $PG_BIN: installing postgresql-15 with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 postgresql-15 >/dev/null
fi
export PG_BIN
# Continuous archiving (test/postgres/archive.test.ts) runs pgBackRest, the version the image
# has, against the object store the local cluster runs (versitygw, built from the Go module proxy
# like the cluster's other tools; cached).
source hack/need.sh
need pgbackrest pgbackrest
bash hack/cluster/build.sh versitygw

bash hack/images/postgres.sh

if [ ! -x node_modules/.bin/jest ]; then
  npm ci --no-audit --no-fund
fi

# In band: the test files share one port range and two cores.
npx jest --selectProjects postgres --runInBand --verbose \
  --json --outputFile="${TEST_LOGS:-.work/test-logs}/postgres.json" "$@"
