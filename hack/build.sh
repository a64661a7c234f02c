#!/usr/bin/env bash
# pepr build, then fail if the bundle is missing: pepr build exits 0 on TypeScript errors.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f dist/pepr-pgkeeper.js
npx pepr build "$@"
if [ ! -s dist/pepr-pgkeeper.js ]; then
  echo "pepr build wrote no dist/pepr-pgkeeper.js (type errors?): failing" >&2
  exit 1
fi
echo "bundle: dist/pepr-pgkeeper.js ($(wc -c < dist/pepr-pgkeeper.js) bytes)"
