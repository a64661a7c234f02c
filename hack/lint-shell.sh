#!/usr/bin/env bash
# Runs shellcheck over every shell script: the repository's own (bash), and the scripts the operator
# ships to instance and backup pods (capabilities/database/specs/scripts/*.sh, POSIX sh by their
# shebang or `# shellcheck shell=sh`: images run dash or busybox sh). Those are checked as the
# files they are, following what they source (common.sh, the generated layout.sh): the pods get
# the same text with those files pasted in (hack/generate-scripts.ts). Installs shellcheck on a
# fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/need.sh
need shellcheck shellcheck

mapfile -t scripts < <(git ls-files --cached --others --exclude-standard '*.sh')
shellcheck -x "${scripts[@]}"
echo "shellcheck: ${#scripts[@]} scripts are clean"
