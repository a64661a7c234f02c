#!/usr/bin/env bash
# Smoke check of a running local cluster (hack/cluster/cluster.sh up): server version, the
# controller-manager (Deployment -> ReplicaSet -> Pod, garbage collection of owner references,
# namespace deletion) and the scheduler (the pod is bound to the node, or marked Unschedulable
# with PGKEEPER_NODE=0). The node itself is checked by node-smoke.sh.
#
# Usage: hack/cluster/smoke.sh     (exit 0 when every check passed)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export KUBECONFIG="${KUBECONFIG_PATH}"
KUBECTL="$(kube_bin_dir)/kubectl"
NS="pgkeeper-smoke-$$"
TIMEOUT=60

k() { "${KUBECTL}" "$@"; }

# eventually DESCRIPTION COMMAND...: retries COMMAND every second for up to TIMEOUT seconds.
eventually() {
  local what="$1" deadline=$((SECONDS + TIMEOUT)) start="${SECONDS}"
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "FAIL: ${what} (after ${TIMEOUT} s)"
    sleep 1
  done
  log "ok: ${what} ($((SECONDS - start)) s)"
}

absent() { ! k get "$@" >/dev/null 2>&1; }

pod_exists() { [[ -n "$(k -n "${NS}" get pods -l app=smoke -o name)" ]]; }

pod_scheduled() {
  [[ -n "$(k -n "${NS}" get pods -l app=smoke -o jsonpath='{.items[0].spec.nodeName}')" ]]
}

pod_unschedulable() {
  [[ "$(k -n "${NS}" get pods -l app=smoke \
    -o jsonpath='{.items[0].status.conditions[?(@.type=="PodScheduled")].reason}')" == Unschedulable ]]
}

check_version() {
  local server
  server="$(k version -o json | jq -r .serverVersion.gitVersion)"
  [[ "${server}" == "$(kube_version)" ]] || die "FAIL: server reports ${server}, want $(kube_version)"
  log "ok: server version ${server}"
  k get namespaces >&2
}

check_garbage_collection() {
  local uid
  k -n "${NS}" create configmap owner --from-literal=role=owner >/dev/null
  uid="$(k -n "${NS}" get configmap owner -o jsonpath='{.metadata.uid}')"
  k -n "${NS}" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: dependent
  ownerReferences:
    - {apiVersion: v1, kind: ConfigMap, name: owner, uid: "${uid}"}
data: {role: dependent}
EOF
  k -n "${NS}" delete configmap owner >/dev/null
  eventually "garbage collector deleted the dependent ConfigMap" absent -n "${NS}" configmap dependent
}

check_workload() {
  k -n "${NS}" create deployment smoke --image=localhost/none:1 >/dev/null
  eventually "Deployment -> ReplicaSet -> Pod created" pod_exists
  if [[ "${NODE_ENABLED}" == 1 ]]; then
    eventually "scheduler bound the pod to ${NODE_NAME}" pod_scheduled
  else
    eventually "scheduler marked the pod Unschedulable (no node)" pod_unschedulable
  fi
}

main() {
  [[ -f "${KUBECONFIG}" ]] || die "no kubeconfig at ${KUBECONFIG}: run hack/cluster/cluster.sh up"
  check_version
  k create namespace "${NS}" >/dev/null
  trap 'k delete namespace "${NS}" --wait=false >/dev/null 2>&1 || true' EXIT
  eventually "ServiceAccount ${NS}/default created" k -n "${NS}" get serviceaccount default
  check_garbage_collection
  check_workload
  k delete namespace "${NS}" --wait=false >/dev/null
  eventually "namespace ${NS} deleted with its contents" absent namespace "${NS}"
  trap - EXIT
  log "smoke check passed"
}

main "$@"
