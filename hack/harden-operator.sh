#!/usr/bin/env bash
# Tightens the Deployments `pepr deploy` generates (Pepr 1.1.4 sets runAsNonRoot, no privilege
# escalation and drops every capability, but no seccomp profile, and gives the watcher a 512Mi
# memory limit that bench:scale's 1000-Database peak, 516 MiB, already exceeds):
# - seccomp RuntimeDefault for both pods (restricted Pod Security Standard);
# - the watcher's memory: request 512Mi, limit 768Mi (the measured peak plus half again).
# Run it after every `pepr deploy`, which puts the generated Deployments back.
#   KUBECONFIG=... bash hack/harden-operator.sh [namespace]
# A read-only root file system is not possible with Pepr 1.1.4's controller: it writes the
# unpacked module to /app/module-<hash>.js, next to the node_modules it runs from.
set -euo pipefail
namespace="${1:-pepr-system}"

seccomp='{"spec":{"template":{"spec":{"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}}}}}}'
watcher_memory='{"spec":{"template":{"spec":{"containers":[{"name":"watcher","resources":{"requests":{"memory":"512Mi"},"limits":{"memory":"768Mi"}}}]}}}}'

kubectl -n "$namespace" patch deployment pepr-pgkeeper --type strategic -p "$seccomp"
kubectl -n "$namespace" patch deployment pepr-pgkeeper-watcher --type strategic -p "$seccomp"
kubectl -n "$namespace" patch deployment pepr-pgkeeper-watcher --type strategic -p "$watcher_memory"
