#!/usr/bin/env bash
# `npm test`: every tier, cheapest first, on a fresh clone as on a developer's machine. What the
# cluster tiers need (Go binaries, images) is made in the background from the start, beside the
# tiers that need no cluster; the run ends with a summary of every step's time and result
# (hack/test-steps.sh). Budget: a fresh clone with empty caches within 60 minutes on 2 cores
# (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=hack/test-steps.sh
source hack/test-steps.sh
trap summary EXIT

if [ ! -x node_modules/.bin/pepr ]; then
  step "npm ci" npm ci --no-audit --no-fund
fi
step "system packages" bash hack/packages.sh
background "builds" bash hack/build-ahead.sh builds
background "images" bash hack/build-ahead.sh images

step "lint (eslint, prettier, shellcheck)" npm run -s lint
step "type-check" npm run -s typecheck
step "generated files in sync (CRD, scripts, docs)" bash -c \
  'npx ts-node hack/generate-crd.ts --check && npx ts-node hack/generate-scripts.ts --check &&
   npx ts-node hack/docs-generate/run.ts --check'
step "unit tests" npx jest --selectProjects unit --json --outputFile="$TEST_LOGS/unit.json"
step "postgres tests (the SQL edge against real PostgreSQL 15 servers)" bash hack/test-postgres.sh
step "pepr build" bash hack/build.sh
await "builds"
step "integration tests (local control plane)" bash hack/test-integration.sh
await "images"
step "e2e tests (local cluster with a node: real PostgreSQL)" bash hack/test-e2e.sh
