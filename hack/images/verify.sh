#!/usr/bin/env bash
# Runs the built images for real on a throwaway containerd (own config, root, state and socket in a
# temporary directory; the CRI plugin off), the way the cluster will:
#   pause       starts as its non-root user and exits on SIGINT
#   busybox     sh, mkdir, rm (what local-path-provisioner's helper pods run)
#   postgres    the real entrypoint.sh/probe.sh from the ConfigMap builders, with the
#               StatefulSet's env, read-only root, uid 999 and the pod's mounts (the
#               credentials volume's files, <db>-tls's as the operator issues them): bootstrap,
#               readiness, SQL over the socket and over TCP (scram), pgbackrest found by the
#               entrypoint, pgBackRest (version, stanza-create and a full backup with its lock in
#               /tmp and no log file), fast stop, restart on the existing data directory
#   controller  pepr's controller.js starts (and stops at the missing cluster); with a built
#               module (dist/pepr-*.js), the module itself loads and serves HTTPS on :3000
# Never touches the system containerd (/etc/containerd, /run/containerd). Stops what it starts.
#
# Usage: hack/images/verify.sh [pause|busybox|postgres|controller ...]   (default: all)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_tools containerd:containerd ctr:containerd runc:runc jq:jq nsenter:util-linux
WORK="$(mktemp -d "${IMAGE_TMP}/pgkeeper-verify.XXXXXX")"
SOCK="${WORK}/containerd.sock"
CONTAINERD_PID=""
PASSED=0
FAILED=0

# The instance image checked (its env says PG_MAJOR=15); the other majors share its build.
REF_POSTGRES="$(postgres_ref 15)"

ctr_() { ctr --address "${SOCK}" --namespace k8s.io "$@"; }

pass() {
  PASSED=$((PASSED + 1))
  log "PASS $*"
}
fail() {
  FAILED=$((FAILED + 1))
  log "FAIL $*"
}

start_containerd() {
  cat >"${WORK}/config.toml" <<EOF
version = 2
root = "${WORK}/root"
state = "${WORK}/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "${SOCK}"
[ttrpc]
  address = "${SOCK}.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${WORK}/opt"
EOF
  setsid containerd --config "${WORK}/config.toml" >"${WORK}/containerd.log" 2>&1 &
  CONTAINERD_PID=$!
  local i
  for i in $(seq 50); do
    ctr --address "${SOCK}" version >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "throwaway containerd did not start; see ${WORK}/containerd.log"
}

# Kills every task, removes containers, stops containerd by its PID, unmounts what is left below
# the work directory and deletes it.
cleanup() {
  local c
  if [[ -n "${CONTAINERD_PID}" ]]; then
    for c in $(ctr_ containers ls -q 2>/dev/null); do
      ctr_ tasks kill -s SIGKILL "${c}" >/dev/null 2>&1 || true
      ctr_ tasks rm -f "${c}" >/dev/null 2>&1 || true
      ctr_ containers rm "${c}" >/dev/null 2>&1 || true
    done
    kill "${CONTAINERD_PID}" 2>/dev/null || true
    wait "${CONTAINERD_PID}" 2>/dev/null || true
  fi
  findmnt -rn -o TARGET | grep -F "${WORK}/" | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  rm -rf --one-file-system "${WORK}"
}
trap cleanup EXIT

# Waits for a detached task to stop, then deletes the task.
wait_exit() {
  local c="$1" timeout="$2" i
  for i in $(seq "${timeout}"); do
    if ctr_ tasks ls | awk -v c="${c}" '$1 == c && $3 == "STOPPED" { found = 1 } END { exit !found }'; then
      ctr_ tasks rm "${c}" >/dev/null 2>&1 || true
      return 0
    fi
    sleep 1
  done
  return 1
}

# A fresh network namespace has its loopback down (no CNI here): bring it up from the host.
loopback_up() {
  local pid
  pid="$(ctr_ tasks ls | awk -v c="$1" '$1 == c { print $2 }')"
  nsenter -t "${pid}" -n ip link set lo up
}

check_pause() {
  ctr_ run -d "${REF_PAUSE}" pause0 >/dev/null
  sleep 1
  if ctr_ tasks ls | grep -q '^pause0 .*RUNNING' &&
    [[ "$(stat -c %u "/proc/$(ctr_ tasks ls | awk '$1 == "pause0" { print $2 }')")" == 65535 ]]; then
    pass "pause runs as 65535"
  else
    fail "pause is not running as 65535"
  fi
  ctr_ tasks kill -s SIGINT pause0
  if wait_exit pause0 10; then pass "pause exits on SIGINT"; else fail "pause ignores SIGINT"; fi
  ctr_ containers rm pause0
}

check_busybox() {
  local out
  out="$(ctr_ run --rm --read-only --mount "type=tmpfs,src=tmpfs,dst=/data,options=rw" \
    "${REF_BUSYBOX}" bb0 sh -c 'mkdir -p /data/a/b && rm -rf /data/a && ls -d /data && echo ok')" || true
  if [[ "${out}" == *ok* ]]; then pass "busybox sh/mkdir/rm"; else fail "busybox: ${out}"; fi
}

# The instance scripts exactly as the ConfigMap and CronJob builders render them.
render_scripts() {
  local dir="$1"
  # shellcheck disable=SC2016 # a JavaScript template literal, not a shell expansion
  (cd "${REPO_ROOT}" && npx ts-node -T -e '
    import { writeFileSync } from "node:fs";
    import { buildConfigMap } from "./capabilities/database/specs/configmap";
    import { input } from "./test/unit/builder-fixtures";
    const dir = process.argv[1];
    const data = buildConfigMap(input({ version: "15" })).data ?? {};
    for (const [file, text] of Object.entries(data)) writeFileSync(`${dir}/${file}`, text);
  ' "${dir}")
}

# The Secret <db>-tls's files as the operator issues them (its CA, the server and replication
# certificates), for the instance's `ssl = on`.
render_tls() {
  local dir="$1"
  # shellcheck disable=SC2016 # a JavaScript program, not a shell expansion
  (cd "${REPO_ROOT}" && npx ts-node -T -e '
    import { writeFileSync } from "node:fs";
    import { tlsMaterial } from "./capabilities/database/pki/database-tls";
    import { DatabaseTls, TLS_SECRET_KEYS } from "./capabilities/database/specs/tls";
    const dir = process.argv[1];
    const tls = tlsMaterial("orders", {}, ["localhost"], new Date()).tls;
    for (const [part, file] of Object.entries(TLS_SECRET_KEYS))
      writeFileSync(`${dir}/${file}`, tls[part as keyof DatabaseTls]);
  ' "${dir}")
}

# Runs the instance container in the background (like the kubelet, attached: its log goes to a
# file and its exit status to POSTGRES_CTR's `wait`).
start_postgres() {
  local d="${WORK}/pg" i
  ctr_ run --rm --read-only \
    --mount "type=bind,src=${d}/config,dst=/config,options=rbind:ro" \
    --mount "type=bind,src=${d}/data,dst=/var/lib/postgresql/data,options=rbind:rw" \
    --mount "type=bind,src=${d}/run,dst=/controller/run,options=rbind:rw" \
    --mount "type=bind,src=${d}/tmp,dst=/tmp,options=rbind:rw" \
    --mount "type=bind,src=${d}/credentials,dst=/credentials,options=rbind:ro" \
    --mount "type=bind,src=${d}/tls,dst=/tls,options=rbind:ro" \
    --env PGDATA=/var/lib/postgresql/data/pgdata --env PG_MAJOR=15 --env DB_NAME=orders \
    --env POD_NAME=orders-0 --env POD_IP=127.0.0.1 --env PRIMARY_HOST=orders-rw \
    --env HEADLESS_SERVICE=orders-pods --env PGHOST=/controller/run --env PGPORT=5432 \
    --env PGUSER=postgres "${REF_POSTGRES}" pg0 /bin/sh /config/entrypoint.sh \
    >>"${d}/postgres.log" 2>&1 &
  POSTGRES_CTR=$!
  for i in $(seq 50); do
    ctr_ tasks ls | grep -q '^pg0 ' && break
    sleep 0.2
  done
  loopback_up pg0
}

# Exit status of the instance container once it ended (124 after a minute).
postgres_exit() {
  local i
  for i in $(seq 60); do
    kill -0 "${POSTGRES_CTR}" 2>/dev/null || break
    sleep 1
  done
  kill -0 "${POSTGRES_CTR}" 2>/dev/null && return 124
  wait "${POSTGRES_CTR}"
}

wait_ready() {
  local i
  for i in $(seq 120); do
    ctr_ tasks exec --exec-id "ready-$1-${i}" pg0 /bin/sh /config/probe.sh ready 2>/dev/null && return 0
    sleep 1
  done
  return 1
}

pg_exec() { ctr_ tasks exec --exec-id "x$((RANDOM))" pg0 "$@"; }

# pgBackRest as the operator runs it on the read-only root (hack/images/README.md): lock in /tmp,
# no log file (its default /var/log/pgbackrest is read-only), here a repository under /tmp. Only
# warnings and errors are printed, stderr included.
pgbackrest_() {
  pg_exec pgbackrest --stanza=verify --lock-path=/tmp/pgbackrest --log-level-file=off \
    --log-level-console=warn --repo1-path=/tmp/pgbackrest-repo \
    --pg1-path=/var/lib/postgresql/data/pgdata --pg1-socket-path=/controller/run "$@" 2>&1
}

check_postgres() {
  local d="${WORK}/pg" out
  mkdir -p "${d}/config" "${d}/data" "${d}/run" "${d}/tmp" "${d}/credentials" "${d}/tls"
  chown 999:999 "${d}/data" "${d}/run"
  chmod 1777 "${d}/tmp"
  # The credentials volume: the passwords as files, as the StatefulSet mounts them.
  printf '%s' "su:pw'1" >"${d}/credentials/superuser-password"
  printf '%s' "app'pw" >"${d}/credentials/app-password"
  chmod 0444 "${d}/credentials/"*
  render_scripts "${d}/config"
  # As the Secret volume gives them: readable by the instance's user only.
  render_tls "${d}/tls"
  chown 999:999 "${d}/tls/"*
  chmod 0600 "${d}/tls/"*
  start_postgres
  if wait_ready 1; then pass "postgres bootstrapped and ready"; else
    fail "postgres not ready after bootstrap"
    log "postgres log:" && cat "${d}/postgres.log" >&2
    return
  fi
  out="$(pg_exec psql -Atc "select version(); select current_user; select datname from pg_database where datname = 'app'")"
  if [[ "${out}" == *"PostgreSQL 15"*postgres*app* ]]; then pass "psql over the socket: ${out%%,*}"; else fail "psql: ${out}"; fi
  out="$(pg_exec env "PGPASSWORD=app'pw" psql -h 127.0.0.1 -U app -d app -Atc 'select current_user')"
  if [[ "${out}" == app ]]; then pass "app login over TCP (scram)"; else fail "app login: ${out}"; fi
  out="$(pg_exec psql -Atc 'show pgkeeper.image_has_pgbackrest')"
  if [[ "${out}" == on ]]; then pass "the entrypoint found pgbackrest in the image"; else fail "image_has_pgbackrest: ${out}"; fi
  out="$(pg_exec pgbackrest version 2>&1)" || out="${out} (exit $?)"
  if [[ "${out}" =~ ^pgBackRest\ [0-9.]+$ ]]; then pass "pgbackrest version as 999: ${out}"; else fail "pgbackrest version: ${out}"; fi
  # archive_mode is off in the instances for now, hence no archive check.
  out="$(pgbackrest_ stanza-create && pgbackrest_ --type=full --start-fast --no-archive-check \
    --repo1-retention-full=1 backup)" ||
    out="${out} (exit $?)"
  if [[ -z "${out}" ]] && compgen -G "${d}/tmp/pgbackrest-repo/backup/verify/*F" >/dev/null; then
    pass "pgbackrest stanza-create + full backup on the read-only root (lock in /tmp, no log file)"
  else fail "pgbackrest: ${out}"; fi
  pg_exec /bin/sh /config/probe.sh stop >/dev/null
  out=0 && postgres_exit || out=$?
  if [[ "${out}" == 0 ]]; then pass "probe.sh stop: fast shutdown, exit 0"; else fail "stop: exit ${out}"; fi
  start_postgres
  if wait_ready 2; then pass "postgres restarted on its data directory"; else fail "restart"; fi
  pg_exec /bin/sh /config/probe.sh stop >/dev/null
  postgres_exit || fail "second stop: exit $?"
  if [[ "${FAILED}" -gt 0 ]]; then log "postgres log:" && cat "${d}/postgres.log" >&2; fi
}

check_controller() {
  local d="${WORK}/ctl" out bundle hash
  mkdir -p "${d}/load" "${d}/certs"
  out="$(timeout 60 ctr --address "${SOCK}" --namespace k8s.io run --rm "${REF_CONTROLLER}" ctl0 /usr/bin/node \
    /app/node_modules/pepr/dist/controller.js 0000 2>&1)" || true
  # Without a cluster it must get as far as the Kubernetes client (and find every module).
  if [[ "${out}" == *"Error starting Pepr Store CRD"* && "${out}" != *"Cannot find module"* ]]; then
    pass "controller.js loads and reaches the Kubernetes client"
  else fail "controller.js: ${out:0:300}"; fi
  bundle="$(find "${REPO_ROOT}/dist" -maxdepth 1 -name 'pepr-*.js' -print -quit 2>/dev/null || true)"
  if [[ -z "${bundle}" ]]; then
    log "SKIP module run: no dist/pepr-*.js (run npx pepr build)"
    return 0
  fi
  hash="$(sha256sum "${bundle}" | cut -d' ' -f1)"
  gzip -c "${bundle}" >"${d}/load/module-${hash}.js.gz"
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
    -keyout "${d}/certs/tls.key" -out "${d}/certs/tls.crt" 2>/dev/null
  chmod 0644 "${d}/load/"* "${d}/certs/"*
  # What controller.js does after the Store CRD (which needs a cluster): unpack, then run.
  ctr_ run -d --env PEPR_WATCH_MODE=true \
    --mount "type=bind,src=${d}/load,dst=/app/load,options=rbind:ro" \
    --mount "type=bind,src=${d}/certs,dst=/etc/certs,options=rbind:ro" \
    "${REF_CONTROLLER}" ctl1 sh -c "gunzip -c /app/load/module-${hash}.js.gz >/app/module-${hash}.js && exec node /app/module-${hash}.js" >/dev/null
  loopback_up ctl1
  sleep 8
  out="$(ctr_ tasks exec --exec-id probe ctl1 node -e '
    require("https").get("https://127.0.0.1:3000/", { rejectUnauthorized: false },
      r => console.log("status", r.statusCode)).on("error", e => console.log("error", e.message));')" || true
  if [[ "${out}" == status* ]]; then pass "module $(basename "${bundle}") loads and serves HTTPS :3000"; else fail "module: ${out}"; fi
  ctr_ tasks kill -s SIGKILL ctl1 >/dev/null
  wait_exit ctl1 10 || true
  ctr_ containers rm ctl1
}

main() {
  local checks=("$@") start check
  ((${#checks[@]} > 0)) || checks=(pause busybox postgres controller)
  start="$(now)"
  start_containerd
  bash "${IMAGES_DIR}/import.sh" "${SOCK}" k8s.io
  for check in "${checks[@]}"; do
    "check_${check}"
  done
  log "verify: $(elapsed "${start}") s"
  printf '%d passed, %d failed\n' "${PASSED}" "${FAILED}"
  ((FAILED == 0))
}

main "$@"
