#!/usr/bin/env bash
# `npm start`: a local Kubernetes control plane, the operator as in `pepr dev`, and a sample
# Database, shown running. Ctrl-C stops the operator; `npm run cluster:down` stops the cluster.
#
# Own cluster instead? Point KUBECONFIG at it and set PGKEEPER_HOST to an address of this machine
# that the apiserver can reach (for kind: the docker bridge gateway, e.g. 172.17.0.1), then run
# PGKEEPER_EXTERNAL_CLUSTER=1 npm start.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
SAMPLE="${PGKEEPER_SAMPLE:-samples/database.yaml}"
HOST="${PGKEEPER_HOST:-localhost}"
LOG_DIR="${PGKEEPER_WORK:-$PWD/.work}/logs"
mkdir -p "$LOG_DIR"

if [ ! -x node_modules/.bin/pepr ]; then
  say "Installing npm packages"
  npm ci --no-audit --no-fund
fi

if [ "${PGKEEPER_EXTERNAL_CLUSTER:-0}" = 1 ]; then
  say "Using your cluster (KUBECONFIG=${KUBECONFIG:-~/.kube/config})"
  OPERATOR_KUBECONFIG="${KUBECONFIG:-$HOME/.kube/config}"
else
  say "Local images: PostgreSQL, pause, controller (the first run builds them: 5 to 8 minutes)"
  bash hack/images/build-all.sh
  say "Local cluster (the first run builds Kubernetes from source: about 30 minutes)"
  source hack/cluster/use.sh
  use_cluster
  OPERATOR_KUBECONFIG="$(dirname "$KUBECONFIG")/kubeconfigs/operator.kubeconfig"
  # pgkeeper's images are in the cluster's registry (pushed by `up`), which the node pulls from.
  export PGKEEPER_IMAGE_REPOSITORY="${PGKEEPER_IMAGE_REPOSITORY:-${PGKEEPER_REGISTRY}/pgkeeper}"
fi

say "Installing the Database CRD"
kubectl apply --server-side --force-conflicts -f deploy/crd.yaml
kubectl wait --for=condition=Established crd/databases.pgkeeper.dev crd/backups.pgkeeper.dev --timeout=60s

OPERATOR_PID=""
stop_operator() {
  [ -n "$OPERATOR_PID" ] || return 0
  kill -TERM -- "-$OPERATOR_PID" 2>/dev/null || true
  wait "$OPERATOR_PID" 2>/dev/null || true
  OPERATOR_PID=""
}
trap 'stop_operator; echo; echo "Operator stopped. The cluster keeps running: npm run cluster:down stops it."; exit 0' INT TERM
trap stop_operator EXIT

operator_ready() {
  curl -sk --max-time 2 "https://127.0.0.1:3000/healthz" >/dev/null 2>&1 &&
    kubectl get validatingwebhookconfiguration pepr-pgkeeper >/dev/null 2>&1
}

# pepr dev sometimes fails to register its webhooks (a transient API error) and then idles in
# watch mode without serving: stop such an attempt and try again.
for attempt in 1 2 3; do
  say "Starting the operator: pepr dev --host $HOST (attempt $attempt, log: $LOG_DIR/operator.log)"
  KUBECONFIG="$OPERATOR_KUBECONFIG" setsid node_modules/.bin/pepr dev --host "$HOST" --yes \
    >"$LOG_DIR/operator.log" 2>&1 &
  OPERATOR_PID=$!
  for _ in $(seq 1 120); do
    operator_ready && break
    kill -0 "$OPERATOR_PID" 2>/dev/null || break
    sleep 1
  done
  operator_ready && break
  tail -n 20 "$LOG_DIR/operator.log" | grep -v '[├│└]' || true
  stop_operator
  [ "$attempt" = 3 ] && { echo "the operator did not start; see $LOG_DIR/operator.log" >&2; exit 1; }
done
sleep 3 # let the watches list before the sample arrives

NAME="$(kubectl create --dry-run=client -o jsonpath='{.metadata.name}' -f "$SAMPLE")"
NS="$(kubectl create --dry-run=client -o jsonpath='{.metadata.namespace}' -f "$SAMPLE")"
NS="${NS:-default}"
ARCHIVING=0
if [ "${PGKEEPER_EXTERNAL_CLUSTER:-0}" != 1 ] &&
  [ -z "$(kubectl create --dry-run=client -o jsonpath='{.spec.backup}' -f "$SAMPLE")" ]; then
  ARCHIVING=1
fi

if [ "$ARCHIVING" = 1 ]; then
  say "Archiving $NAME's WAL into the local object store (https://$PGKEEPER_S3_ENDPOINT, bucket $PGKEEPER_S3_BUCKET)"
  # The store's keys and CA as Secrets in the sample's namespace, as a user would create them.
  store_key() { sed -n "s/^$1=//p" "$PGKEEPER_S3_CREDENTIALS"; }
  kubectl create secret generic pgkeeper-s3 -n "$NS" --dry-run=client -o yaml \
    --from-literal=accessKeyId="$(store_key ROOT_ACCESS_KEY)" \
    --from-literal=secretAccessKey="$(store_key ROOT_SECRET_KEY)" | kubectl apply -f -
  kubectl create secret generic pgkeeper-s3-ca -n "$NS" --dry-run=client -o yaml \
    --from-file=ca.crt="$PGKEEPER_S3_CA" | kubectl apply -f -
  STORE="{\"endpoint\":\"$PGKEEPER_S3_ENDPOINT\",\"bucket\":\"$PGKEEPER_S3_BUCKET\",\"credentials\":{\"secretName\":\"pgkeeper-s3\"},\"ca\":{\"secretName\":\"pgkeeper-s3-ca\"}}"
  say "Applying $SAMPLE with spec.backup.objectStore: $STORE"
  kubectl patch --local -f "$SAMPLE" --type merge -o yaml \
    -p "{\"spec\":{\"backup\":{\"objectStore\":$STORE}}}" | kubectl apply -f -
else
  say "Applying $SAMPLE"
  kubectl apply -f "$SAMPLE"
fi

say "Waiting until $NAME is reconciled"
for _ in $(seq 1 120); do
  gen="$(kubectl get pgdb "$NAME" -n "$NS" -o jsonpath='{.metadata.generation}')"
  seen="$(kubectl get pgdb "$NAME" -n "$NS" -o jsonpath='{.status.observedGeneration}')"
  rec="$(kubectl get pgdb "$NAME" -n "$NS" -o jsonpath='{.status.conditions[?(@.type=="Reconciled")].status}')"
  [ "$gen" = "$seen" ] && [ "$rec" = "True" ] && break
  sleep 1
done

say "kubectl get pgdb -n $NS"
kubectl get pgdb -n "$NS" -o wide
say "Children of $NAME"
kubectl get statefulset,service,configmap,secret,pdb,cronjob,pvc,pod -n "$NS" -l "pgkeeper.dev/database=$NAME"
say "Conditions and recent events"
kubectl get pgdb "$NAME" -n "$NS" -o jsonpath='{range .status.conditions[*]}{.type}={.status} ({.reason}): {.message}{"\n"}{end}'
kubectl get events -n "$NS" --field-selector "involvedObject.name=$NAME" --sort-by=.lastTimestamp | tail -n 10

if [ "${PGKEEPER_EXTERNAL_CLUSTER:-0}" != 1 ]; then
  say "Waiting until PostgreSQL in $NAME is Ready"
  for _ in $(seq 1 150); do
    [ "$(kubectl get pgdb "$NAME" -n "$NS" -o jsonpath='{.status.phase}')" = Ready ] && break
    sleep 2
  done
  kubectl get pgdb "$NAME" -n "$NS"
  kubectl get pod -n "$NS" -l "pgkeeper.dev/database=$NAME" -o wide
  if [ "$ARCHIVING" = 1 ]; then
    say "A base backup of $NAME into the store: a Backup object (kubectl get backups)"
    kubectl apply -f - <<YAML
apiVersion: pgkeeper.dev/v1alpha1
kind: Backup
metadata: { name: $NAME-first, namespace: $NS }
spec: { database: $NAME, verify: true }
YAML
    for _ in $(seq 1 90); do
      phase="$(kubectl get backup "$NAME-first" -n "$NS" -o jsonpath='{.status.phase}')"
      [ "$phase" = Completed ] || [ "$phase" = Failed ] && break
      sleep 2
    done
    kubectl get backups -n "$NS"
    kubectl get pgdb "$NAME" -n "$NS" -o jsonpath='{range .status.conditions[?(@.type=="ContinuousArchiving")]}{.type}={.status} ({.reason}): {.message}{"\n"}{end}'
    echo "repository: $(kubectl get pgdb "$NAME" -n "$NS" -o jsonpath='{.status.backup.repositoryPath}')"
  fi
  RW_IP="$(kubectl get service "$NAME-rw" -n "$NS" -o jsonpath='{.spec.clusterIP}')"
  say "Connect through the $NAME-rw Service with the app Secret (TLS, the server verified by its CA and name)"
  CA_FILE="$LOG_DIR/$NAME-ca.crt"
  kubectl get secret "$NAME-app" -n "$NS" -o jsonpath='{.data.ca\.crt}' | base64 -d >"$CA_FILE"
  HOST="$NAME-rw.$NS.svc"
  echo "  PGPASSWORD=\"\$(kubectl get secret $NAME-app -n $NS -o jsonpath='{.data.password}' | base64 -d)\" \\"
  echo "    psql \"host=$HOST hostaddr=$RW_IP user=app dbname=app sslmode=verify-full sslrootcert=$CA_FILE\""
  if command -v psql >/dev/null; then
    echo
    PGPASSWORD="$(kubectl get secret "$NAME-app" -n "$NS" -o jsonpath='{.data.password}' | base64 -d)" \
      PGCONNECT_TIMEOUT=5 psql "host=$HOST hostaddr=$RW_IP user=app dbname=app sslmode=verify-full sslrootcert=$CA_FILE" \
      -c "select version(), ssl, version as tls from pg_stat_ssl where pid = pg_backend_pid()" || true
  fi
fi

cat <<TXT

The operator is running (log: $LOG_DIR/operator.log). Try:
  export KUBECONFIG=$KUBECONFIG
  kubectl explain database.spec
  kubectl get secret $NAME-app -n $NS -o jsonpath='{.data.uri}' | base64 -d   # connection URI
  kubectl patch pgdb $NAME -n $NS --type merge -p '{"spec":{"instances":2}}'
Ctrl-C stops the operator; npm run cluster:down stops the cluster.
TXT
wait "$OPERATOR_PID"
