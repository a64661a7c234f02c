#!/usr/bin/env bash
# Smoke check of the node tier of a running local cluster (cluster.sh up with PGKEEPER_NODE=1):
# node Ready, a pod runs, `kubectl logs` and `exec` (apiserver -> kubelet), a Service's ClusterIP
# from the host and from a pod (and from its own backend: hairpin), the `kubernetes` Service from a
# pod, cluster DNS from a pod, the object store (from the host with S3 requests, from a pod by its
# Service's name), and a PVC of the default StorageClass whose data outlives its pod.
# Everything runs in a throwaway namespace, deleted at the end (with the volume).
#
# Usage: hack/cluster/node-smoke.sh     (exit 0 when every check passed; prints timings)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export KUBECONFIG="${KUBECONFIG_PATH}"
KUBECTL="$(kube_bin_dir)/kubectl"
NS="pgkeeper-node-smoke-$$"
TIMEOUT="${PGKEEPER_SMOKE_TIMEOUT:-120}"

k() { "${KUBECTL}" "$@"; }
kn() { "${KUBECTL}" -n "${NS}" "$@"; }

# eventually DESCRIPTION COMMAND...: retries COMMAND every second for up to TIMEOUT seconds.
eventually() {
  local what="$1" deadline=$((SECONDS + TIMEOUT)) start="${SECONDS}"
  shift
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "FAIL: ${what} (after ${TIMEOUT} s); last attempt:"
      "$@" >&2 || true
      exit 1
    fi
    sleep 1
  done
  log "ok: ${what} ($((SECONDS - start)) s)"
}

# output_has TEXT COMMAND...: COMMAND succeeds and its output contains TEXT.
output_has() {
  local want="$1" out
  shift
  out="$("$@" 2>&1)" || return 1
  [[ "${out}" == *"${want}"* ]]
}

# pod NAME COMMAND [VOLUME_CLAIM]: a busybox pod running `sh -c COMMAND`, optionally with a PVC at
# /data.
pod() {
  local name="$1" command="$2" claim="${3:-}"
  {
    cat <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {app: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  restartPolicy: Never
  containers:
    - name: main
      image: ${HELPER_IMAGE}
      imagePullPolicy: Never
      command: [sh, -c, $(jq -Rn --arg c "${command}" '$c')]
EOF
    if [[ -n "${claim}" ]]; then
      cat <<EOF
      volumeMounts: [{name: data, mountPath: /data}]
  volumes:
    - name: data
      persistentVolumeClaim: {claimName: ${claim}}
EOF
    fi
  } | kn apply -f - >/dev/null
}

# http_get_in POD HOST PORT: an HTTP GET from inside POD with busybox nc (Debian's static busybox
# 1.35 `wget` crashes with SIGSEGV before doing anything).
http_get_in() {
  kn exec "$1" -- sh -c "printf 'GET / HTTP/1.0\\r\\nHost: \$1\\r\\n\\r\\n' | nc -w 3 \$1 \$2" sh "$2" "$3"
}

pod_ready() { [[ "$(kn get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" == True ]]; }
pod_finished() { [[ "$(kn get pod "$1" -o jsonpath='{.status.phase}')" == @(Succeeded|Failed) ]]; }
pod_succeeded() { [[ "$(kn get pod "$1" -o jsonpath='{.status.phase}')" == Succeeded ]]; }
pvc_bound() { [[ "$(kn get pvc "$1" -o jsonpath='{.status.phase}')" == Bound ]]; }
node_ready() {
  [[ "$(k get node "${NODE_NAME}" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" == True ]]
}

check_pods_and_services() {
  local ip
  # A tiny web server (busybox httpd) behind a Service, and a client pod.
  pod web 'mkdir -p /www && echo pgkeeper-web-ok >/www/index.html && echo web-started && exec httpd -f -p 8080 -h /www'
  pod client 'echo client-started && exec sleep 3600'
  kn create service clusterip web --tcp=80:8080 >/dev/null
  eventually "pod web Running and Ready" pod_ready web
  eventually "pod client Running and Ready" pod_ready client
  eventually "kubectl logs (apiserver -> kubelet)" output_has web-started kn logs web
  eventually "kubectl exec (apiserver -> kubelet -> containerd)" \
    output_has pgkeeper-web-ok kn exec web -- cat /www/index.html
  ip="$(kn get service web -o jsonpath='{.spec.clusterIP}')"
  eventually "host -> ClusterIP ${ip}:80" output_has pgkeeper-web-ok curl -fsS --max-time 3 "http://${ip}/"
  eventually "pod -> ClusterIP ${ip}:80" output_has pgkeeper-web-ok http_get_in client "${ip}" 80
  eventually "pod -> its own Service (hairpin)" output_has pgkeeper-web-ok http_get_in web "${ip}" 80
  eventually "DNS from a pod: web.${NS}.svc.${CLUSTER_DOMAIN} -> ${ip}" \
    output_has "${ip}" kn exec client -- nslookup "web.${NS}.svc.${CLUSTER_DOMAIN}"
  eventually "pod -> http://web (search path) by name" output_has pgkeeper-web-ok http_get_in client web 80
  # HTTP to the apiserver's HTTPS port: its "400 Bad Request" answer proves the path.
  eventually "pod -> Service kubernetes (kubernetes.default:443 answers)" \
    output_has ' 400 ' http_get_in client kubernetes.default 443
}

check_storage() {
  local pv path
  kn apply -f - >/dev/null <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 64Mi}}
EOF
  # shellcheck disable=SC2016 # $(date) runs in the pod
  pod writer 'echo survived-$(date +%s) >/data/proof && cat /data/proof' data
  eventually "PVC bound by the default StorageClass (local-path)" pvc_bound data
  eventually "pod writer wrote to its volume" pod_succeeded writer
  pv="$(kn get pvc data -o jsonpath='{.spec.volumeName}')"
  path="$(k get pv "${pv}" -o jsonpath='{.spec.hostPath.path}{.spec.local.path}')"
  log "ok: PV ${pv} at ${path}"
  kn delete pod writer --wait=true >/dev/null
  pod reader 'cat /data/proof' data
  eventually "pod reader finished" pod_succeeded reader
  output_has survived- kn logs reader || die "FAIL: data did not survive the pod deletion"
  log "ok: data survived the deletion of its pod ($(kn logs reader))"
}

# The object store: an object written and read back from the host with S3 signatures (curl
# --aws-sigv4, credentials from a file, never a command line), then listed from a pod by
# pgBackRest (the PostgreSQL image's) through the Service's name, with the cluster CA and keys
# from a Secret: the path the operator's backups take. Deleted from the host at the end.
check_objectstore() {
  local key="node-smoke-$$" auth="${WORK_DIR}/.node-smoke-$$.curlrc" body
  local url="https://localhost:${OBJECTSTORE_PORT}/${OBJECTSTORE_BUCKET}/${key}"
  # shellcheck source=/dev/null # made by node.sh
  source "${WORK_DIR}/pki/objectstore.credentials"
  (umask 077 && printf 'user = "%s:%s"\n' "${ROOT_ACCESS_KEY}" "${ROOT_SECRET_KEY}" >"${auth}")
  # versitygw requires x-amz-content-sha256 (curl signs it as given) and a Content-Length.
  s3() {
    curl -fsS --max-time 10 --cacert "${WORK_DIR}/pki/ca.crt" -K "${auth}" \
      --aws-sigv4 aws:amz:us-east-1:s3 -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
  }
  body="pgkeeper-s3-$$"
  s3 -X PUT --data-binary "${body}" "${url}" >/dev/null || die "FAIL: PUT ${url}"
  [[ "$(s3 "${url}")" == "${body}" ]] || die "FAIL: GET ${url} did not return what was written"
  log "ok: object store from the host: PUT and GET of ${url}"
  kn create secret generic s3 --from-file=ca.crt="${WORK_DIR}/pki/ca.crt" \
    --from-file=PGBACKREST_REPO1_S3_KEY=<(printf '%s' "${ROOT_ACCESS_KEY}") \
    --from-file=PGBACKREST_REPO1_S3_KEY_SECRET=<(printf '%s' "${ROOT_SECRET_KEY}") >/dev/null
  kn apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: pgbackrest}
spec:
  restartPolicy: Never
  containers:
    - name: main
      image: localhost/pgkeeper/postgres:15
      imagePullPolicy: Never
      command: [pgbackrest, --no-config, --log-level-file=off,
        --repo1-type=s3, "--repo1-s3-endpoint=${OBJECTSTORE_SERVICE_HOST}",
        "--repo1-s3-bucket=${OBJECTSTORE_BUCKET}", --repo1-s3-region=us-east-1,
        --repo1-s3-uri-style=path, --repo1-storage-ca-file=/s3/ca.crt, --repo1-path=/, repo-ls]
      env:
        - {name: PGBACKREST_REPO1_S3_KEY, valueFrom: {secretKeyRef: {name: s3, key: PGBACKREST_REPO1_S3_KEY}}}
        - {name: PGBACKREST_REPO1_S3_KEY_SECRET, valueFrom: {secretKeyRef: {name: s3, key: PGBACKREST_REPO1_S3_KEY_SECRET}}}
      volumeMounts: [{name: s3, mountPath: /s3}]
  volumes: [{name: s3, secret: {secretName: s3, items: [{key: ca.crt, path: ca.crt}]}}]
EOF
  eventually "pgBackRest in a pod done" pod_finished pgbackrest
  { pod_succeeded pgbackrest && output_has "${key}" kn logs pgbackrest; } ||
    die "FAIL: pgBackRest in a pod did not list ${key} through https://${OBJECTSTORE_SERVICE_HOST}: $(kn logs pgbackrest 2>&1)"
  s3 -X DELETE "${url}" >/dev/null || die "FAIL: DELETE ${url}"
  rm -f "${auth}"
  log "ok: object store from a pod (pgBackRest repo-ls over TLS with the cluster CA); object deleted"
}

main() {
  [[ -f "${KUBECONFIG}" ]] || die "no kubeconfig at ${KUBECONFIG}: run hack/cluster/cluster.sh up"
  local start="${SECONDS}"
  eventually "node ${NODE_NAME} Ready" node_ready
  k create namespace "${NS}" >/dev/null
  trap 'k delete namespace "${NS}" --wait=false >/dev/null 2>&1 || true' EXIT
  eventually "ServiceAccount ${NS}/default created" kn get serviceaccount default
  check_pods_and_services
  check_objectstore
  check_storage
  k delete namespace "${NS}" --wait=false >/dev/null
  trap - EXIT
  log "node smoke check passed in $((SECONDS - start)) s"
}

main "$@"
