#!/usr/bin/env bash
# Runs shellcheck over every shell script: the repository's own (bash), and the scripts the operator
# ships to instance and backup pods (rendered from capabilities/database/specs/scripts/; dash
# runs them, so they are checked as POSIX sh). Installs shellcheck on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/need.sh
need shellcheck shellcheck

mapfile -t scripts < <(git ls-files --cached --others --exclude-standard '*.sh')
shellcheck -x "${scripts[@]}"

rendered="$(mktemp -d)"
trap 'rm -rf "$rendered"' EXIT
npx ts-node --transpile-only hack/render-instance-scripts.ts "$rendered"
shellcheck --shell=sh "$rendered"/*.sh
echo "shellcheck: ${#scripts[@]} scripts and the instance scripts are clean"
