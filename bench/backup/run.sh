#!/usr/bin/env bash
# bench/backup: base backup throughput (pgBackRest into the S3-compatible store, beside a plain
# pg_basebackup of the same data on the same machine), restore time through the instance
# entrypoint (bootstrap.recovery), and the RPO bound archive_timeout gives without synchronous
# standbys. Real PostgreSQL 15 servers and versitygw on loopback, like the postgres tier.
#
#   npm run bench:backup                  # 512 MB of table data
#   BACKUP_BENCH_MB=2048 npm run bench:backup
set -euo pipefail
cd "$(dirname "$0")/../.."
source hack/need.sh
need pgbackrest pgbackrest
export PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
[ -x "$PG_BIN/postgres" ] || need /usr/lib/postgresql/15/bin/postgres postgresql-15
bash hack/cluster/build.sh versitygw
npx ts-node --transpile-only bench/backup/run.ts "$@"
