#!/usr/bin/env bash
# Tightens what `pepr deploy` generates. Run it after every `pepr deploy`, which puts the
# generated objects back.
#   KUBECONFIG=... bash hack/harden-operator.sh [namespace]
#
# Pods (Pepr 1.1.4 sets runAsNonRoot, no privilege escalation and drops every capability, but no
# seccomp profile, and gives the watcher a 512Mi memory limit that bench:scale's 1000-Database
# peak, 516 MiB, already exceeds):
# - seccomp RuntimeDefault for both pods (restricted Pod Security Standard);
# - the watcher's memory: request 512Mi, limit 768Mi (the measured peak plus half again);
# - a read-only root file system. Pepr 1.1.4's controller writes the unpacked module to
#   /app/module-<hash>.js, next to the node_modules it runs from (so Node resolves them), and
#   nothing else. That one file becomes a writable emptyDir file mounted over its path: an init
#   container creates it empty in the emptyDir (a subPath that does not exist would be made a
#   directory), the container mounts it by subPath, and the controller writes into it. The hash
#   is read from the Deployment, so this follows every build.
#
# RBAC (issue 15; hack/rbac-audit checks grants against use):
# - the leader-election Lease in this namespace only: a Role and RoleBinding here, since Pepr
#   generates ClusterRoles alone (package.json grants no Leases);
# - Pepr's own cluster-wide "create, patch any CRD" narrowed to patching its PeprStore CRD,
#   which `pepr deploy` creates; its controller re-applies it at every start.
set -euo pipefail
namespace="${1:-pepr-system}"
account=pepr-pgkeeper

seccomp='{"spec":{"template":{"spec":{"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}}}}}}'
watcher_memory='{"spec":{"template":{"spec":{"containers":[{"name":"watcher","resources":{"requests":{"memory":"512Mi"},"limits":{"memory":"768Mi"}}}]}}}}'

kubectl apply --server-side --field-manager=pgkeeper-harden -f - <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: pgkeeper-leader-election, namespace: ${namespace} }
rules:
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [create]
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    resourceNames: [pgkeeper-leader]
    verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: pgkeeper-leader-election, namespace: ${namespace} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: pgkeeper-leader-election }
subjects:
  - { kind: ServiceAccount, name: ${account}, namespace: ${namespace} }
YAML

# The ClusterRole's rules with Pepr's CRD rule replaced (order kept; nothing else changes).
kubectl get clusterrole "$account" -o json |
  node -e '
    const role = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const isCrdRule = r => (r.apiGroups || []).includes("apiextensions.k8s.io");
    role.rules = role.rules.filter(r => !isCrdRule(r));
    role.rules.push({
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      resourceNames: ["peprstores.pepr.dev"],
      verbs: ["patch"],
    });
    delete role.metadata.managedFields;
    process.stdout.write(JSON.stringify(role));
  ' |
  kubectl replace -f -

# The strategic merge patch making a Deployment's root file system read-only (see above).
read_only_root() {
  # shellcheck disable=SC2016 # JavaScript template literals, not shell expansions
  kubectl -n "$namespace" get deployment "$1" -o json |
    node -e '
      const spec = JSON.parse(require("fs").readFileSync(0, "utf8")).spec.template.spec;
      const main = spec.containers[0];
      const hash = main.args[main.args.length - 1];
      if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`no module hash in the args of ${main.name}`);
      const file = `module-${hash}.js`;
      const volume = "unpacked-module";
      const restricted = { ...main.securityContext, readOnlyRootFilesystem: true };
      process.stdout.write(JSON.stringify({ spec: { template: { spec: {
        volumes: [{ name: volume, emptyDir: { sizeLimit: "16Mi" } }],
        initContainers: [{
          name: "unpacked-module-file",
          image: main.image,
          imagePullPolicy: main.imagePullPolicy,
          args: ["-e", `require("fs").writeFileSync("/unpacked/${file}", "")`],
          securityContext: restricted,
          resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "64Mi" } },
          volumeMounts: [{ name: volume, mountPath: "/unpacked" }],
        }],
        containers: [{
          name: main.name,
          securityContext: { readOnlyRootFilesystem: true },
          volumeMounts: [{ name: volume, mountPath: `/app/${file}`, subPath: file }],
        }],
      } } } }));
    '
}

for deployment in pepr-pgkeeper pepr-pgkeeper-watcher; do
  kubectl -n "$namespace" patch deployment "$deployment" --type strategic -p "$seccomp"
  kubectl -n "$namespace" patch deployment "$deployment" --type strategic \
    -p "$(read_only_root "$deployment")"
done
kubectl -n "$namespace" patch deployment pepr-pgkeeper-watcher --type strategic -p "$watcher_memory"
