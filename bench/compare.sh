#!/usr/bin/env bash
# bench/compare: the controller-runtime baseline (../shared/bench/baseline-go by default, or
# PGKEEPER_BASELINE_SRC) built with Go from the module proxy into the cache if missing, the local
# control plane (started if needed; no node: pods stay Pending), then bench/compare/run.ts "$@".
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/cluster/use.sh
export PGKEEPER_NODE=0

src="${PGKEEPER_BASELINE_SRC:-$(cd .. && pwd)/shared/bench/baseline-go}"
bin="${PGKEEPER_CACHE:-$HOME/.cache/pgkeeper}/bin/baseline-go-$(cat "$src/main.go" "$src/go.sum" | sha256sum | cut -c1-12)"
if [ ! -x "$bin" ]; then
  echo "building the baseline from $src" >&2
  mkdir -p "$(dirname "$bin")"
  (cd "$src" && go build -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
fi
stop_cluster_on_exit started
use_cluster
PGKEEPER_BASELINE="$bin" npx ts-node --transpile-only bench/compare/run.ts "$@"
