#!/usr/bin/env bash
# bench/probe: probe CPU per instance per second, a connection per probe vs long-lived sessions,
# against real PostgreSQL 15 servers on loopback (no cluster). bench/probe/run.ts "$@".
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
# A hundred servers need more ports than the tests' range (25432..25499).
export PGKEEPER_PG_LAST_PORT="${PGKEEPER_PG_LAST_PORT:-25699}"
exec npx ts-node --transpile-only bench/probe/run.ts "$@"
