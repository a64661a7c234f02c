/**
 * Shell shared by the instance scripts, pasted at the top of each so every script in the
 * ConfigMap stands alone. POSIX sh only: images ship dash (Debian) or busybox sh, not bash.
 *
 * These are TypeScript strings, not files, because esbuild bundles the module into one file:
 * nothing next to the source exists at run time. In the template literals below `\${` is a shell
 * expansion and `${` a TypeScript constant.
 */
import { CONFIG_DIR, POSTGRES_PORT, RUN_DIR, TLS_DIR } from "../layout";

export const COMMON_SH = `set -eu

# Overridable for tests only; the StatefulSet never sets them. Not every script uses each.
# shellcheck disable=SC2034
{
  RUN_DIR=\${PGKEEPER_RUN_DIR:-${RUN_DIR}}
  CONFIG_DIR=\${PGKEEPER_CONFIG_DIR:-${CONFIG_DIR}}
  TLS_DIR=\${PGKEEPER_TLS_DIR:-${TLS_DIR}}
  PORT=\${PGKEEPER_PORT:-${POSTGRES_PORT}}
}

log() {
  printf '%s pgkeeper: %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2
}

# Sets PG_BIN to the directory holding the PostgreSQL program $1: $PG_BIN if it has it, else the
# Debian layout /usr/lib/postgresql/$PG_MAJOR/bin (official postgres:<v> images and Debian
# packages), else wherever PATH finds it (Debian puts only wrappers in /usr/bin, hence the order).
# sh has no local variables: the _fpb_ prefix keeps callers' variables intact. Not every script
# calls it.
# shellcheck disable=SC2317
find_pg_bin() {
  for _fpb_dir in "\${PG_BIN:-}" "/usr/lib/postgresql/\${PG_MAJOR:-}/bin"; do
    if [ -n "$_fpb_dir" ] && [ -x "$_fpb_dir/$1" ]; then
      PG_BIN=$_fpb_dir
      return 0
    fi
  done
  if _fpb_found=$(command -v "$1" 2>/dev/null); then
    PG_BIN=\${_fpb_found%/*}
    return 0
  fi
  log "cannot find the PostgreSQL program $1: set PG_BIN or PG_MAJOR"
  exit 1
}
`;
