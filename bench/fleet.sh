#!/usr/bin/env bash
# bench/fleet: a real-PostgreSQL scale point (issue 29, goal 6). DATABASES (20) Databases of 3
# instances on the local node, the operator installed by `pepr deploy` at its defaults; the
# operator's and the instances' CPU at rest, what the probes cost, and one Database's failovers
# while the others write. bench/fleet/run.ts says what it prints.
#
#   npm run bench:fleet
#   DATABASES=30 REST_SECONDS=300 RATE=10 FAILOVERS=20 FAULTS=delete,kill:10 npm run bench:fleet
#
# Needs the node tier (real pods): builds the images and brings the cluster up like `npm run
# test:e2e`, then stops everything it started. Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/lib/node-tier.sh
npx ts-node --transpile-only bench/fleet/run.ts "$@"
