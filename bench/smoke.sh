#!/usr/bin/env bash
# bench/smoke.sh TIER: every bench that TIER's environment serves, at its smoke size (seconds,
# results to a temporary directory, never bench/results), so that a bench cannot rot unnoticed.
# One line per bench with its wall time; exit 1 if any failed (an exception, no figures, results
# that do not render). Its log is kept in bench-smoke-<bench>.log under $TEST_LOGS (the tiers'
# log directory) or $PGKEEPER_WORK/test-logs.
#
#   postgres     probe, backup  (PG_BIN, pgBackRest and versitygw as hack/test-postgres.sh has them)
#   integration  scale, admission, fuzz  (the control plane hack/test-integration.sh started)
#   e2e          failover, fleet  (the cluster with its node, images and psql, as hack/test-e2e.sh
#                has it)
#
# It starts and stops no cluster: the calling tier script has brought it up (KUBECONFIG and the
# cluster's variables exported by hack/cluster/use.sh) and stops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

tier="${1:-}"
logs="${TEST_LOGS:-${PGKEEPER_WORK:-.work}/test-logs}"
mkdir -p "$logs"
BENCH_RESULTS_DIR="$(mktemp -d)"
trap 'rm -rf "$BENCH_RESULTS_DIR"' EXIT
export BENCH_SMOKE=1 BENCH_RESULTS_DIR
failed=0

# smoke NAME COMMAND...: runs one bench's smoke size, prints its line, keeps its log.
smoke() {
  local name="$1" log="${logs}/bench-smoke-$1.log" start rc=0
  shift
  start="$(date +%s%N)"
  "$@" >"$log" 2>&1 || rc=$?
  local took
  took="$(awk -v ns="$(($(date +%s%N) - start))" 'BEGIN { printf "%.1f", ns / 1e9 }')"
  if [ "$rc" -eq 0 ]; then
    printf 'bench smoke: %-10s ok      %6s s\n' "$name" "$took"
  else
    printf 'bench smoke: %-10s FAILED  %6s s (exit %s; %s)\n' "$name" "$took" "$rc" "$log"
    tail -n 30 "$log" | sed 's/^/    /'
    failed=1
  fi
}

ts_node=(npx ts-node --transpile-only)
# pepr dev serves on port 3000: one such run at a time on this machine, as bench/admission.sh
# and bench/fuzz.sh take it (-o: what the command starts must not inherit and keep the lock).
port_3000=(flock -o /tmp/pgkeeper-port3000.lock)

case "$tier" in
  postgres)
    export PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
    smoke probe "${ts_node[@]}" bench/probe/run.ts
    smoke backup "${ts_node[@]}" bench/backup/run.ts
    ;;
  integration)
    source bench/lib/kwok.sh
    use_kwok
    smoke scale "${ts_node[@]}" bench/scale/run.ts
    smoke admission "${port_3000[@]}" "${ts_node[@]}" bench/admission/run.ts
    smoke fuzz "${port_3000[@]}" "${ts_node[@]}" bench/fuzz/run.ts
    ;;
  e2e)
    smoke failover "${ts_node[@]}" bench/failover/failover.ts
    smoke fleet "${ts_node[@]}" bench/fleet/run.ts
    ;;
  *)
    echo "usage: bash bench/smoke.sh postgres|integration|e2e" >&2
    exit 2
    ;;
esac
exit "$failed"
