# shellcheck shell=bash
# await_exec PID BINARY [SECONDS]: waits until process PID runs BINARY (its /proc/PID/exe), for at
# most SECONDS (5). A component is started as a subshell that execs setsid, which execs the
# binary: until both execs happened, the PID's exe is bash or setsid, and a liveness check that
# compares it with the binary took a component still starting for one that had exited (seen on a
# loaded machine: "objectstore exited while waiting for object store /health"). Returns 1 if the
# process ended, or never ran BINARY in time. Sourced, never executed.
await_exec() {
  local pid="$1" binary="$2" tries=$((${3:-5} * 20)) exe
  while ((tries-- > 0)); do
    [[ -r "/proc/${pid}/stat" ]] || return 1
    exe="$(readlink "/proc/${pid}/exe" 2>/dev/null)" || return 1
    [[ "${exe% (deleted)}" != "${binary}" ]] || return 0
    sleep 0.05
  done
  return 1
}
