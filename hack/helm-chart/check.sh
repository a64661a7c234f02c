#!/usr/bin/env bash
# Checks the chart npm run build generated (dist/pgkeeper-helm) with real helm, without a
# cluster: helm lint --strict; helm template with the defaults and with check-values.yaml, whose
# objects check-rendered.ts checks (hardening, Lease rules, labels, the values where they belong,
# the module YAML's objects unchanged otherwise); the release namespace guard; the values schema;
# the size of the release's Secret.
# Builds helm on first use (hack/helm-chart/helm.sh). npm run helm:check runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."

CHART=dist/pgkeeper-helm
NAMESPACE=pepr-system
RELEASE=pgkeeper

fail() {
  echo "helm-chart check: $*" >&2
  exit 1
}

[[ -f "${CHART}/Chart.yaml" ]] || fail "no ${CHART}: run npm run build first"
HELM="$(bash hack/helm-chart/helm.sh)"
# No cluster is used: helm template and lint render on their own; an empty kubeconfig makes
# sure nothing reaches a cluster the environment points at.
export KUBECONFIG=/dev/null

tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT

"${HELM}" lint --strict --namespace "${NAMESPACE}" "${CHART}"
"${HELM}" lint --strict --namespace "${NAMESPACE}" -f hack/helm-chart/check-values.yaml "${CHART}"
"${HELM}" template "${RELEASE}" "${CHART}" --namespace "${NAMESPACE}" >"${tmp}/defaults.yaml"
"${HELM}" template "${RELEASE}" "${CHART}" --namespace "${NAMESPACE}" \
  -f hack/helm-chart/check-values.yaml >"${tmp}/overrides.yaml"
npx ts-node hack/helm-chart/check-rendered.ts "${tmp}/defaults.yaml" "${tmp}/overrides.yaml"

# expect_refused WHAT PATTERN HELM-ARGS...: helm template must fail, saying PATTERN.
expect_refused() {
  local what="$1" pattern="$2" out
  shift 2
  if out="$("${HELM}" template "${RELEASE}" "${CHART}" "$@" 2>&1)"; then
    fail "${what}: helm template rendered"
  fi
  grep -qE -- "${pattern}" <<<"${out}" || fail "${what}: not refused with /${pattern}/: ${out}"
  echo "ok   refused: ${what}"
}
expect_refused "another release namespace" \
  "installs into the namespace ${NAMESPACE} only, not \"other\".*--namespace ${NAMESPACE}" \
  --namespace other
expect_refused "zero watchers (values schema)" "/watcher/replicas" \
  --namespace "${NAMESPACE}" --set watcher.replicas=0
expect_refused "a misspelt value (values schema)" "additional properties 'watchers'" \
  --namespace "${NAMESPACE}" --set watchers.replicas=3
# Helm keeps each release in one Secret, at most 1 MiB: the release as JSON, gzipped, base64 (its
# storage driver's encoding; gzip -9 comes within about 1 % of Go's). The module's code is most of
# it, twice: ADR 0026.
limit=1048576
size="$("${HELM}" install "${RELEASE}" "${CHART}" --namespace "${NAMESPACE}" --dry-run=client \
  -o json | gzip -9 | base64 -w0 | wc -c)"
((size < limit)) || fail "the release would need ${size} bytes in its Secret, over ${limit}"
echo "ok   the release's Secret: about ${size} of ${limit} bytes ($((size * 100 / limit)) %)"
echo "helm-chart check: ${CHART} passed with $("${HELM}" version --short)"
