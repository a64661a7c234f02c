# shellcheck shell=bash
# use_kwok: kwok (fake nodes for bench/scale) built from the Go module proxy into the cache on
# first use (bench/lib/kwok.ts reads its stages from the module cache), exported as PGKEEPER_KWOK.
# Sourced, never executed.
use_kwok() {
  local bin="${PGKEEPER_CACHE:-${HOME}/.cache/pgkeeper}/kwok/v0.8.0/bin"
  if [ ! -x "${bin}/kwok" ]; then
    GOBIN="${bin}" go install sigs.k8s.io/kwok/cmd/kwok@v0.8.0
  fi
  export PGKEEPER_KWOK="${bin}/kwok"
}
