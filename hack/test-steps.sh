# shellcheck shell=bash
# The steps of `npm test` (hack/test-all.sh), timed. Sourced, never executed.
#
#   step NAME CMD...        runs CMD in the foreground
#   background NAME CMD...  starts CMD beside the steps that follow, its output in
#                           $TEST_LOGS/NAME.log
#   await NAME              waits for a background step; its log's tail shows when it failed
#
# Each step's name, start, end and exit status go to $TEST_LOGS/steps.tsv; the jest tiers write
# their per-file times there too (--json), and hack/test-summary.ts turns both into the table
# `npm test` ends with, whether it passed or not.

TEST_LOGS="${PGKEEPER_WORK:-$PWD/.work}/test-logs"
export TEST_LOGS
mkdir -p "$TEST_LOGS"
: >"$TEST_LOGS/steps.tsv"
rm -f "$TEST_LOGS"/*.json
declare -A _background_pids=()

_record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$TEST_LOGS/steps.tsv"; }

step() {
  local name="$1" start rc=0
  shift
  printf '\n=== %s ===\n' "$name"
  start="$(date +%s)"
  "$@" || rc=$?
  _record "$name" foreground "$start" "$(date +%s)" "$rc"
  return "$rc"
}

background() {
  local name="$1"
  shift
  printf '\n=== %s (in the background: %s) ===\n' "$name" "$TEST_LOGS/$name.log"
  # Its own process group (setsid execs in place: $! is the group), so a failed run stops it
  # whole, go build's compilers included.
  # shellcheck disable=SC2016 # expanded by the inner bash
  setsid bash -c '
    name="$1" steps="$2"
    shift 2
    start="$(date +%s)"
    rc=0
    "$@" || rc=$?
    printf "%s\tbackground\t%s\t%s\t%s\n" "$name" "$start" "$(date +%s)" "$rc" >>"$steps"
    exit "$rc"
  ' _ "$name" "$TEST_LOGS/steps.tsv" "$@" >"$TEST_LOGS/$name.log" 2>&1 &
  _background_pids[$name]=$!
}

await() {
  local name="$1" rc=0 start
  start="$(date +%s)"
  printf '\n=== waiting for %s ===\n' "$name"
  wait "${_background_pids[$name]}" || rc=$?
  unset "_background_pids[$name]"
  _record "waiting for $name" wait "$start" "$(date +%s)" "$rc"
  if [ "$rc" != 0 ]; then
    echo "$name failed ($rc); the end of its log ($TEST_LOGS/$name.log):" >&2
    tail -n 40 "$TEST_LOGS/$name.log" >&2
  fi
  return "$rc"
}

# Background steps still running when the run ends (a failure) are stopped, by process group.
_stop_background() {
  local name
  for name in "${!_background_pids[@]}"; do
    kill -TERM -- "-${_background_pids[$name]}" 2>/dev/null || true
  done
}

summary() {
  _stop_background
  npx ts-node --transpile-only hack/test-summary.ts "$TEST_LOGS" || true
}
