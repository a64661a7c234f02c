#!/usr/bin/env bash
# Smoke check of the node tier of a running local cluster (cluster.sh up with PGKEEPER_NODE=1):
# node Ready, a pod runs, `kubectl logs` and `exec` (apiserver -> kubelet), a Service's ClusterIP
# from the host and from a pod (and from its own backend: hairpin), the `kubernetes` Service from a
# pod, cluster DNS from a pod, the registry (from the host; pods pulling from it, a private image
# with and without a pull secret), the object store (from the host with S3 requests, from a pod by
# its Service's name), and a PVC of the default StorageClass whose data outlives its pod.
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
      image: ${REGISTRY_HOST}/pgkeeper/postgres:15
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

# registry_pod NAME IMAGE [PULL_SECRET]: a pod whose image the kubelet pulls every time
# (imagePullPolicy Always: never the copy `up` imported) and that prints one line.
registry_pod() {
  local name="$1" image="$2" secret="${3:-}"
  kn apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  restartPolicy: Never
  imagePullSecrets: [${secret:+{name: ${secret}\}}]
  containers:
    - name: main
      image: ${image}
      imagePullPolicy: Always
      command: [sh, -c, echo pulled-from-registry]
EOF
}

# pod_pulled POD IMAGE: the kubelet's event says it pulled IMAGE for POD.
pod_pulled() {
  output_has "Successfully pulled image \"$2\"" \
    kn get events --field-selector "involvedObject.name=$1,reason=Pulled" -o jsonpath='{.items[*].message}'
}

# pull_refused POD: POD waits in ErrImagePull or ImagePullBackOff, and the kubelet's event names
# the registry's 401. Prints what it saw (shown when the last attempt fails).
pull_refused() {
  local reason events
  reason="$(kn get pod "$1" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}')"
  events="$(kn get events --field-selector "involvedObject.name=$1,reason=Failed" -o jsonpath='{.items[*].message}')"
  printf 'waiting reason: %s; Failed events: %s\n' "${reason:-none}" "${events:-none}"
  [[ "${reason}" == @(ErrImagePull|ImagePullBackOff) && "${events,,}" == *"401 unauthorized"* ]]
}

# registry_status URL [CURL ARGS...]: the HTTP status of a GET (000 when there was no answer),
# then the response's headers; never fails, the caller judges the answer.
registry_status() {
  local url="$1"
  shift
  { curl -sS --max-time 5 --cacert "${WORK_DIR}/pki/ca.crt" -o /dev/null -D - -w '%{http_code}\n' \
    "$@" "${url}" || true; } | tac
}

# A kubernetes.io/dockerconfigjson Secret for the registry, made from its credentials file by jq
# (the password never appears on a command line).
registry_pull_secret() {
  jq -n --arg name "$1" --arg host "${REGISTRY_HOST}" --rawfile line "${WORK_DIR}/pki/registry.credentials" '
    ($line | rtrimstr("\n")) as $c | ($c | index(":")) as $i
    | {apiVersion: "v1", kind: "Secret", metadata: {name: $name},
       type: "kubernetes.io/dockerconfigjson",
       stringData: {".dockerconfigjson": ({auths: {($host): {username: $c[:$i],
         password: $c[$i + 1:], auth: ($c | @base64)}}} | tojson)}}' |
    kn apply -f - >/dev/null
}

REGISTRY_PUBLIC_IMAGE="${REGISTRY_HOST}/pgkeeper/postgres:15"
# Its own name: the node keeps what it pulled with credentials, and the e2e tests' private image
# must not be on the node before they pull it.
REGISTRY_PRIVATE_IMAGE="${REGISTRY_HOST}/private/smoke/postgres:15"

# Pods pulling from the node's registry: a public image, the private one without a pull secret and
# with one. Made first, so their pulls overlap the other checks (check_registry awaits them).
start_registry_pods() {
  registry_pull_secret registry-pull
  registry_pod registry-public "${REGISTRY_PUBLIC_IMAGE}"
  registry_pod registry-no-secret "${REGISTRY_PRIVATE_IMAGE}"
  registry_pod registry-secret "${REGISTRY_PRIVATE_IMAGE}" registry-pull
}

# check_registry_blob REPOSITORY_URL: the config blob of tag 15, read anonymously, has the digest
# its manifest names. (The registry pods transfer no blob: containerd already holds every one from
# the import, and shares content between its namespaces.)
check_registry_blob() {
  local digest
  digest="$(curl -fsS --max-time 5 --cacert "${WORK_DIR}/pki/ca.crt" "$1/manifests/15" |
    jq -r .config.digest)" || die "FAIL: GET $1/manifests/15"
  [[ "sha256:$(curl -fsS --max-time 5 --cacert "${WORK_DIR}/pki/ca.crt" "$1/blobs/${digest}" |
    sha256sum | cut -d' ' -f1)" == "${digest}" ]] || die "FAIL: GET $1/blobs/${digest}: wrong content"
  log "ok: blob ${digest:7:12} read back with its digest"
}

# The node's registry (hack/cluster/registry): its API from the host over TLS with the cluster CA,
# the access rule (anonymous reads except under private/, which answers 401 with a Basic
# challenge), then the pods of start_registry_pods: the public image pulled, the private one
# refused without a pull secret (401) and pulled with one.
check_registry() {
  local url="https://${REGISTRY_HOST}/v2" auth="${WORK_DIR}/.node-smoke-$$.registry.curlrc" answer
  local public="${REGISTRY_PUBLIC_IMAGE}" private="${REGISTRY_PRIVATE_IMAGE}"
  answer="$(registry_status "${url}/")"
  [[ "${answer%%$'\n'*}" == 200 && "${answer,,}" == *"docker-distribution-api-version: registry/2.0"* ]] ||
    die "FAIL: GET ${url}/ with the cluster CA: ${answer}"
  log "ok: registry API ${url}/ over TLS with the cluster CA (200, registry/2.0)"
  answer="$(registry_status "${url}/private/postgres/manifests/15")"
  [[ "${answer%%$'\n'*}" == 401 && "${answer}" == *'Basic realm="pgkeeper-registry"'* ]] ||
    die "FAIL: anonymous GET of a private manifest: ${answer}"
  (umask 077 && printf 'user = "%s"\n' "$(<"${WORK_DIR}/pki/registry.credentials")" >"${auth}")
  answer="$(registry_status "${url}/private/postgres/manifests/15" -K "${auth}")"
  rm -f "${auth}"
  [[ "${answer%%$'\n'*}" == 200 ]] || die "FAIL: GET of a private manifest with the credentials: ${answer}"
  log "ok: a private manifest: 401 with a Basic challenge anonymously, 200 with the credentials"
  check_registry_blob "${url}/pgkeeper/postgres"

  eventually "pod pulled ${public} from the registry and ran" pod_succeeded registry-public
  eventually "kubelet event: Successfully pulled ${public}" pod_pulled registry-public "${public}"
  eventually "pod without a pull secret refused ${private} (ErrImagePull, 401)" pull_refused registry-no-secret
  eventually "pod with a pull secret pulled ${private} and ran" pod_succeeded registry-secret
  eventually "kubelet event: Successfully pulled ${private}" pod_pulled registry-secret "${private}"
}

main() {
  [[ -f "${KUBECONFIG}" ]] || die "no kubeconfig at ${KUBECONFIG}: run hack/cluster/cluster.sh up"
  local start="${SECONDS}"
  eventually "node ${NODE_NAME} Ready" node_ready
  k create namespace "${NS}" >/dev/null
  trap 'k delete namespace "${NS}" --wait=false >/dev/null 2>&1 || true' EXIT
  eventually "ServiceAccount ${NS}/default created" kn get serviceaccount default
  start_registry_pods
  check_pods_and_services
  check_registry
  check_objectstore
  check_storage
  k delete namespace "${NS}" --wait=false >/dev/null
  trap - EXIT
  log "node smoke check passed in $((SECONDS - start)) s"
}

main "$@"
