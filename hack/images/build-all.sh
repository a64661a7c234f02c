#!/usr/bin/env bash
# Builds every local image (each script skips an image whose inputs did not change) and prints a
# summary: reference, archive, size, time of each step.
# Usage: hack/images/build-all.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

declare -A TIMES=()
total_start="$(now)"
for script in pause postgres controller; do
  start="$(now)"
  bash "${IMAGES_DIR}/${script}.sh"
  TIMES[${script}]="$(elapsed "${start}")"
done

{
  printf '%-36s %-62s %10s\n' REFERENCE ARCHIVE SIZE
  for ref in "${IMAGE_REFS[@]}"; do
    archive="$(archive_path "${IMAGE_ARCHIVES[${ref}]}")"
    printf '%-36s %-62s %10s\n' "${ref}" "${archive}" "$(size_mib "${archive}")"
  done
  printf 'time: pause+busybox %s s, postgres %s s, controller %s s, total %s s\n' \
    "${TIMES[pause]}" "${TIMES[postgres]}" "${TIMES[controller]}" "$(elapsed "${total_start}")"
} >&2
