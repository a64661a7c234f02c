#!/usr/bin/env bash
# `npm test`: every tier, cheapest first. Installs what it needs on a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s ===\n' "$*"; }

if [ ! -x node_modules/.bin/pepr ]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi

step "lint (eslint + prettier)"
npm run -s lint
step "type-check"
npm run -s typecheck
step "CRD in sync with the TypeScript API"
npx ts-node hack/generate-crd.ts --check
step "unit tests"
npx jest --selectProjects unit
step "PostgreSQL tests (the SQL edge against real PostgreSQL 15 servers)"
bash hack/test-postgres.sh
step "pepr build"
bash hack/build.sh
step "integration tests (local control plane)"
bash hack/test-integration.sh
step "e2e tests (local cluster with a node: real PostgreSQL)"
bash hack/test-e2e.sh
