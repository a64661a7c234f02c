#!/usr/bin/env bash
# pepr build, then fail if the bundle is missing (pepr build exits 0 on TypeScript errors) or if
# the manifests lack pgkeeper's customizations (patches/pepr+1.1.4.patch, applied by npm's
# postinstall, runs Pepr's objects through deploy/operator/manifests.ts: ADR 0024). Then
# pgkeeper's Helm chart from those manifests (dist/pgkeeper-helm, ADR 0026); helm itself is only
# needed to check it (npm run helm:check), not here.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -f dist/pepr-pgkeeper.js
npx pepr build "$@"
if [ ! -s dist/pepr-pgkeeper.js ]; then
  echo "pepr build wrote no dist/pepr-pgkeeper.js (type errors?): failing" >&2
  exit 1
fi
if ! grep -q 'name: unpacked-module-file' dist/pepr-module-pgkeeper.yaml; then
  echo "dist/pepr-module-pgkeeper.yaml lacks deploy/operator/manifests.ts's changes:" \
    "is patches/pepr+1.1.4.patch applied? (npm ci applies it; or npx patch-package)" >&2
  exit 1
fi
echo "bundle: dist/pepr-pgkeeper.js ($(wc -c < dist/pepr-pgkeeper.js) bytes)"
npx ts-node hack/helm-chart/generate.ts
