# shellcheck shell=bash
# PKI and kubeconfigs for the local control plane, made with openssl. Sourced by cluster.sh.
#
# Existing keys and certificates are kept across `up`/`down` so kubeconfigs handed out earlier keep
# working; delete ${PKI_DIR} to start over. Only the apiserver serving certificate is re-issued,
# when its SAN list changes (another advertise address or service range), and so is the object
# store's (node.sh).

CERT_DAYS=3650

# issue_cert NAME SUBJECT EXTENSIONS: key + certificate signed by the cluster CA.
issue_cert() {
  local name="$1" subject="$2" extensions="$3"
  openssl req -new -nodes -newkey rsa:2048 -subj "${subject}" \
    -keyout "${PKI_DIR}/${name}.key" -out "${PKI_DIR}/${name}.csr" 2>/dev/null
  openssl x509 -req -in "${PKI_DIR}/${name}.csr" -days "${CERT_DAYS}" \
    -CA "${PKI_DIR}/ca.crt" -CAkey "${PKI_DIR}/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -extfile <(printf '%s\n' "${extensions}") -out "${PKI_DIR}/${name}.crt" 2>/dev/null
  rm -f "${PKI_DIR}/${name}.csr"
}

# A client certificate: Kubernetes reads the user from CN and the groups from O.
issue_client_cert() {
  local name="$1" subject="$2"
  [[ -f "${PKI_DIR}/${name}.crt" ]] && return
  issue_cert "${name}" "${subject}" "$(printf '%s\n' \
    'basicConstraints=critical,CA:FALSE' \
    'keyUsage=critical,digitalSignature,keyEncipherment' \
    'extendedKeyUsage=clientAuth')"
}

# issue_serving_cert NAME SUBJECT SANS: a server certificate, issued again only when SANS change.
issue_serving_cert() {
  local name="$1" subject="$2" sans="$3"
  [[ ! -f "${PKI_DIR}/${name}.crt" || "$(cat "${PKI_DIR}/${name}.sans" 2>/dev/null)" != "${sans}" ]] ||
    return 0
  log "pki: issuing the ${name} serving certificate (${sans})"
  issue_cert "${name}" "${subject}" "$(printf '%s\n' \
    'basicConstraints=critical,CA:FALSE' \
    'keyUsage=critical,digitalSignature,keyEncipherment' \
    'extendedKeyUsage=serverAuth' \
    "subjectAltName=${sans}")"
  printf '%s\n' "${sans}" >"${PKI_DIR}/${name}.sans"
}

apiserver_sans() {
  local sans="IP:127.0.0.1,IP:${SERVICE_CLUSTER_IP},DNS:localhost,DNS:kubernetes"
  sans+=",DNS:kubernetes.default,DNS:kubernetes.default.svc"
  sans+=",DNS:kubernetes.default.svc.cluster.local"
  [[ "${ADVERTISE_ADDRESS}" == 127.0.0.1 ]] || sans+=",IP:${ADVERTISE_ADDRESS}"
  printf '%s\n' "${sans}"
}

ensure_pki() {
  mkdir -p "${PKI_DIR}"
  if [[ ! -f "${PKI_DIR}/ca.crt" ]]; then
    log "pki: creating the cluster CA in ${PKI_DIR}"
    openssl req -x509 -new -nodes -newkey rsa:2048 -days "${CERT_DAYS}" \
      -subj "/CN=${CLUSTER_NAME}-ca" \
      -addext 'basicConstraints=critical,CA:TRUE' \
      -addext 'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign' \
      -keyout "${PKI_DIR}/ca.key" -out "${PKI_DIR}/ca.crt" 2>/dev/null
  fi

  issue_serving_cert apiserver "/CN=kube-apiserver" "$(apiserver_sans)"

  issue_client_cert admin "/O=system:masters/CN=pgkeeper-admin"
  # The operator in dev mode runs as its own user, so the audit log tells its requests apart.
  issue_client_cert operator "/O=system:masters/CN=pgkeeper-operator"
  issue_client_cert controller-manager "/CN=system:kube-controller-manager"
  issue_client_cert scheduler "/CN=system:kube-scheduler"
  # For apiserver -> kubelet calls (logs, exec) once the node tier runs a kubelet.
  issue_client_cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"

  # Service-account tokens: the apiserver signs with the private key and verifies with the public
  # one; the controller-manager signs the tokens of the controllers' own service accounts.
  if [[ ! -f "${PKI_DIR}/sa.key" ]]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "${PKI_DIR}/sa.key" 2>/dev/null
    openssl pkey -in "${PKI_DIR}/sa.key" -pubout -out "${PKI_DIR}/sa.pub"
  fi
}

# write_kubeconfig FILE USER CERT_NAME: certificates embedded, so the file can be copied elsewhere.
# Regenerated on every `up` (the apiserver port may have changed): do not edit it by hand.
write_kubeconfig() {
  local file="$1" user="$2" cert="$3"
  mkdir -p "$(dirname "${file}")"
  cat >"${file}.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: ${CLUSTER_NAME}
    cluster:
      server: https://127.0.0.1:${APISERVER_PORT}
      certificate-authority-data: $(base64 -w0 "${PKI_DIR}/ca.crt")
users:
  - name: ${user}
    user:
      client-certificate-data: $(base64 -w0 "${PKI_DIR}/${cert}.crt")
      client-key-data: $(base64 -w0 "${PKI_DIR}/${cert}.key")
contexts:
  - name: ${CLUSTER_NAME}
    context:
      cluster: ${CLUSTER_NAME}
      user: ${user}
current-context: ${CLUSTER_NAME}
EOF
  mv -f "${file}.tmp" "${file}"
}

write_kubeconfigs() {
  write_kubeconfig "${KUBECONFIG_PATH}" pgkeeper-admin admin
  write_kubeconfig "${COMPONENT_KUBECONFIG_DIR}/controller-manager.kubeconfig" \
    system:kube-controller-manager controller-manager
  write_kubeconfig "${COMPONENT_KUBECONFIG_DIR}/scheduler.kubeconfig" \
    system:kube-scheduler scheduler
  write_kubeconfig "${COMPONENT_KUBECONFIG_DIR}/operator.kubeconfig" pgkeeper-operator operator
}
