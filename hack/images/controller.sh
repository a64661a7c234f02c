#!/usr/bin/env bash
# Builds localhost/pgkeeper/controller:dev, the Pepr controller image of the in-cluster mode
# (`pepr build -i localhost/pgkeeper/controller:dev` + `pepr deploy`).
#
# What pepr's Deployments expect (node_modules/pepr/src/lib/assets/k8sObjects.ts): only `args`
# (`/app/node_modules/pepr/dist/controller.js <hash>`), so the image's entrypoint is node; uid/gid
# 65532; the module Secret mounted at /app/load, certificates at /etc/certs, the admission API
# token at /app/api-path. controller.js unpacks the module to /app/module-<hash>.js, so /app must be
# writable by 65532. The module bundle leaves pepr's dependencies (and pepr) external: they come
# from /app/node_modules. Upstream builds the same thing on a Chainguard node image.
#
# Contents: this machine's Node 20 (`command -v node`, >= 20.19) with the shared libraries ldd
# lists, static busybox for a shell in `kubectl exec`, and `npm ci --omit=dev` of the repo's
# package.json + package-lock.json (the exact pepr and ramda versions the module is built with),
# pruned like upstream (@types, TypeScript sources, source maps).
#
# Idempotent: keyed by these scripts, package.json, package-lock.json and the node binary.
# Usage: hack/images/controller.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NAME=controller-dev
APP_UID=65532
MIN_NODE=20.19.0

node_ok() {
  local v
  v="$("$1" --version)"
  v="${v#v}"
  [[ "$(printf '%s\n%s\n' "${MIN_NODE}" "${v}" | sort -V | head -n1)" == "${MIN_NODE}" && "${v%%.*}" == 20 ]]
}

# The node binary and every shared library it links, each copied (dereferenced) under the name
# the loader asks for. Merged /usr like Debian: /lib and /lib64 are links into /usr.
install_node() {
  local rootfs="$1" node="$2" lib
  mkdir -p "${rootfs}/usr/bin" "${rootfs}/usr/lib" "${rootfs}/usr/lib64"
  ln -s usr/lib "${rootfs}/lib"
  ln -s usr/lib64 "${rootfs}/lib64"
  install -m 0755 "${node}" "${rootfs}/usr/bin/node"
  for lib in $(ldd "${node}" | grep -oE '/[^ ]+'); do
    mkdir -p "${rootfs}$(dirname "${lib}")"
    cp -L "${lib}" "${rootfs}${lib}"
  done
}

install_app() {
  local rootfs="$1" app="${1}/app"
  mkdir -p "${app}"
  cp "${REPO_ROOT}/package.json" "${REPO_ROOT}/package-lock.json" "${app}/"
  # --ignore-scripts: nothing of the production tree needs an install script, and none should run
  # as root on the build machine.
  (cd "${app}" && npm ci --omit=dev --omit=peer --ignore-scripts --no-audit --no-fund \
    --prefer-offline --loglevel=error >/dev/null) || die "npm ci failed"
  rm -rf "${app}/node_modules/.package-lock.json" "${app}/node_modules/@types" \
    "${app}/node_modules/pepr/src" "${app}/node_modules/ramda/dist" "${app}/node_modules/ramda/es"
  find "${app}/node_modules" \( -name '*.ts' -o -name '*.map' -o -name '*.tsbuildinfo' \) -type f -delete
  run_module_in_process "${app}/node_modules/pepr/dist/controller.js"
  # Like upstream, /app holds only node_modules (and later the unpacked module).
  rm -f "${app}/package.json" "${app}/package-lock.json"
  # /app itself belongs to the controller user: controller.js writes module-<hash>.js there.
  # node_modules stays root-owned, read-only for it.
  chown "${APP_UID}:${APP_UID}" "${app}"
}

# Pepr's controller.js, the container's PID 1, unpacks the module and forks a second node process
# to run it, then idles for the pod's life: a second Kubernetes client in memory (102-112 MiB RSS
# per pod, measured in the e2e cluster) doing nothing, and a PID 1 that passes no signal on, so the
# kubelet's SIGTERM never reaches the module (Pepr's server close, pgkeeper giving up the Lease)
# and a pod being replaced waits for SIGKILL. Here the module runs in controller.js's own process
# (ADR 0034): `require` instead of `fork`; and controller.js no longer registers Pepr's store kind
# with the fluent client, which it never uses and which the module's Pepr registers again (the
# two share the client: a second registration throws "GVK Store already registered").
# Each line is replaced exactly once or the build fails.
run_module_in_process() {
  local file="$1"
  # shellcheck disable=SC2016 # a JavaScript template literal, not a shell expansion
  FILE="${file}" node -e '
    const fs = require("fs");
    const file = process.env.FILE;
    const edits = [
      ["(0, import_child_process.fork)(jsPath);", "require(jsPath);"],
      ["(0, import_kubernetes_fluent_client.RegisterKind)(Store, peprStoreGVK);", ""],
    ];
    let text = fs.readFileSync(file, "utf8");
    for (const [from, to] of edits) {
      if (text.split(from).length !== 2) throw new Error(`${file}: expected one "${from}"`);
      text = text.replace(from, to);
    }
    fs.writeFileSync(file, text);
  ' || die "pepr's controller.js is not the one this script knows (pepr 1.1.4)"
}

check() {
  local rootfs="$1" out
  # shellcheck disable=SC2016 # a JavaScript template literal, not a shell expansion
  out="$(chroot "${rootfs}" /usr/bin/env -i /usr/bin/node -e '
    const pepr = require("/app/node_modules/pepr/package.json");
    for (const m of ["pepr", "ramda", "kubernetes-fluent-client", "@kubernetes/client-node"])
      require.resolve(m, { paths: ["/app"] });
    require("/app/node_modules/pepr");
    console.log(`node ${process.version}, pepr ${pepr.version}`);
  ')" || die "node or pepr does not load in the image"
  log "controller: ${out}"
}

main() {
  local start node key rootfs
  start="$(now)"
  ensure_tools umoci:umoci jq:jq
  node="$(command -v node)" || die "node not found (Node ${MIN_NODE}+ is needed)"
  node="$(readlink -f "${node}")"
  node_ok "${node}" || die "${node} is $("${node}" --version); the image needs Node 20 >= ${MIN_NODE}"
  key="$({
    scripts_hash "${BASH_SOURCE[0]}"
    sha256sum "${REPO_ROOT}/package.json" "${REPO_ROOT}/package-lock.json" "${node}" | cut -d' ' -f1
  } | hash_stdin)"
  lock_image "${NAME}"
  if is_current "${NAME}" "${key}"; then
    log "controller: up to date ($(size_mib "$(archive_path "${NAME}")"), $(elapsed "${start}") s)"
    return 0
  fi
  rootfs="$(mktemp -d "${IMAGE_TMP}/pgkeeper-controller.XXXXXX")"
  # shellcheck disable=SC2064 # expand now: the variable is local
  trap "rm -rf '${rootfs}'" EXIT
  install_node "${rootfs}" "${node}"
  install_busybox "${rootfs}" "$(fetch_deb busybox-static)"
  write_users "${rootfs}" "node:${APP_UID}:${APP_UID}:/home/node"
  install -d -o "${APP_UID}" -g "${APP_UID}" -m 0755 "${rootfs}/home/node"
  install -d -m 1777 "${rootfs}/tmp"
  local step_start
  step_start="$(now)"
  install_app "${rootfs}"
  log "controller: npm ci $(elapsed "${step_start}") s, rootfs $(du -sh "${rootfs}" | cut -f1)"
  check "${rootfs}"
  pack_image "${rootfs}" "${NAME}" "${REF_CONTROLLER}" \
    --config.entrypoint /usr/bin/node --config.workingdir /app \
    --config.user "${APP_UID}:${APP_UID}" \
    --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --config.env NODE_ENV=production --config.env HOME=/home/node \
    --config.label "org.opencontainers.image.version=$("${node}" --version)"
  mark_built "${NAME}" "${key}"
  log "controller: built ${REF_CONTROLLER} ($(size_mib "$(archive_path "${NAME}")"), $(elapsed "${start}") s)"
}

main "$@"
