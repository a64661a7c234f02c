#!/usr/bin/env bash
# bench/failover: time from a primary fault to the first write acknowledged by the recovered
# primary, with each failover's timeline, and rows lost, over many failovers per fault.
#
#   npm run bench:failover                          # 60 failovers of each fault, asynchronous
#   FAILOVERS=10 FAULTS=delete,cut:5 npm run bench:failover   # a count after a colon: for that fault
#   MODE=sync npm run bench:failover                # quorum synchronous replication
#   OPERATOR=dev npm run bench:failover             # the operator under pepr dev, not deployed
#
# FAULTS (comma-separated): delete (the pod), kill (postmaster SIGKILL), stop (every postgres
# process SIGSTOPped), cut (network), switchover (requested).
# Needs the node tier (real pods): builds the images and brings the cluster up like `npm run
# test:e2e`, installs the operator with `pepr deploy` at its defaults, prints figures, then stops
# everything it started. Run it on an otherwise idle machine: a failover and the wait for every
# instance to stream again take 20-25 s here, so 60 of each of the five faults take two hours.
# The results are saved after each failover: a run stopped midway keeps what it measured.
set -euo pipefail
cd "$(dirname "$0")/../.."

source bench/lib/node-tier.sh
npx ts-node --transpile-only bench/failover/failover.ts
