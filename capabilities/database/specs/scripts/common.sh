# shellcheck shell=sh
# Shell shared by the instance scripts. POSIX sh only: images ship dash (Debian) or busybox sh,
# not bash.
#
# Every script is a real file here, so shellcheck reads it as it is, but none can source another
# at run time: esbuild bundles the operator into one file, and a pod gets each script as one
# ConfigMap key (or a Job as its command). hack/generate-scripts.ts therefore pastes a sourced
# file in place of the line that sources it (its `# shellcheck source=` line included) and embeds
# the result in a generated TypeScript module (entrypoint.sh -> entrypoint.ts, ...). This file
# sources layout.sh, which the generator writes from the TypeScript constants (specs/layout.ts and
# the modules it names), so a path or a name the scripts share with the operator is spelled once.
set -eu

# shellcheck source-path=SCRIPTDIR source=layout.sh
. ./layout.sh

log() {
  printf '%s pgkeeper: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2
}

# Ends the container with a reason the operator reads from the pod's status (the kubelet keeps
# the termination message, at most 4096 bytes).
# shellcheck disable=SC2317
write_reason() {
  printf '%s' "$*" | head -c 3000 >"${PGKEEPER_TERMINATION_LOG:-/dev/termination-log}" || true
}

# shellcheck disable=SC2317
end_with_reason() {
  log "$*"
  write_reason "$*"
  exit 1
}

# The major of the server program in $PG_BIN: 15 of "postgres (PostgreSQL) 15.20 (Debian ...)".
# shellcheck disable=SC2317
program_major() {
  "$PG_BIN/postgres" --version | sed -n 's/^postgres (PostgreSQL) \([0-9][0-9]*\).*/\1/p'
}

# Prints a credential: its file $1 in CREDENTIALS_DIR (the credentials volume), or, in a pod of
# an earlier pgkeeper not rolled yet (the ConfigMap gives it these scripts first), the value $2
# its environment still carries. `$(credential ...)` drops trailing newlines, as keys want.
# shellcheck disable=SC2317
credential() {
  if [ -f "$CREDENTIALS_DIR/$1" ]; then
    cat "$CREDENTIALS_DIR/$1"
  else
    printf '%s' "${2:-}"
  fi
}

# Runs "$@" (a pgbackrest command) with the object store's keys from the credential files $1 and
# $2 (earlier pods: the values $3 and $4) as repository 1's, in that process's environment alone.
# shellcheck disable=SC2317
with_store_keys() {
  _wsk_id=$(credential "$1" "$3")
  _wsk_secret=$(credential "$2" "$4")
  shift 4
  PGBACKREST_REPO1_S3_KEY=$_wsk_id PGBACKREST_REPO1_S3_KEY_SECRET=$_wsk_secret "$@"
}

# Sets PG_BIN to the directory holding the PostgreSQL program $1: $PG_BIN if it has it, else the
# Debian layout /usr/lib/postgresql/$PG_MAJOR/bin (official postgres:<v> images and Debian
# packages), else wherever PATH finds it (Debian puts only wrappers in /usr/bin, hence the order).
# sh has no local variables: the _fpb_ prefix keeps callers' variables intact. Not every script
# calls it.
# shellcheck disable=SC2317
find_pg_bin() {
  for _fpb_dir in "${PG_BIN:-}" "/usr/lib/postgresql/$pg_major/bin"; do
    if [ -n "$_fpb_dir" ] && [ -x "$_fpb_dir/$1" ]; then
      PG_BIN=$_fpb_dir
      return 0
    fi
  done
  if _fpb_found=$(command -v "$1" 2>/dev/null); then
    PG_BIN=${_fpb_found%/*}
    return 0
  fi
  log "cannot find the PostgreSQL program $1: set PG_BIN or $ENV_PG_MAJOR"
  exit 1
}
