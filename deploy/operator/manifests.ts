/**
 * What `pepr build` and `pepr deploy` generate for the operator, made what a production install
 * needs (ADR 0024). Pepr 1.1.4 writes its Deployments and RBAC in code with no setting for most
 * of this; patches/pepr+1.1.4.patch passes every Deployment, ClusterRole, Role and RoleBinding
 * it generates (for `pepr deploy`, `pepr build`'s YAML and Zarf) through `customizeManifest`,
 * which package.json's `pepr.customizeManifests` names. Pure: an object in, an object out.
 *
 * - The watcher: two replicas, replaced one at a time (leader election keeps one acting; the
 *   other takes over within a Lease's 15 s when the leader's pod goes), spread over nodes, with
 *   memory for bench:scale's peak (516 MiB at 1000 Databases; Pepr gives 512Mi).
 * - Both pods: seccomp RuntimeDefault and a read-only root file system (the restricted Pod
 *   Security Standard, and more); a CPU request but no CPU limit (ADR 0036: Pepr's 500m limit
 *   throttled admission reviews and failover passes in bursts).
 * - RBAC: the leader-election Lease in the operator's namespace only (Pepr grants none), in the
 *   Role Pepr binds in that namespace, whose binding Pepr 1.1.4 gives a ServiceAccount that does
 *   not exist (`<name>-store`); and Pepr's own "create and patch any CRD" narrowed to patching
 *   its PeprStore CRD.
 * - The operator settings a cluster sets once (where its images are, their pull Secrets), taken
 *   from the environment of `pepr build` / `pepr deploy` into both Deployments:
 *   `PGKEEPER_IMAGE_REPOSITORY=registry.example.com/pgkeeper npx pepr deploy`.
 */
import type {
  KubernetesObject,
  V1ClusterRole,
  V1RoleBinding,
  V1Container,
  V1Deployment,
  V1DeploymentSpec,
  V1PodSpec,
  V1PolicyRule,
  V1Role,
} from "@kubernetes/client-node";
import { DEFAULT_LEASE_NAME } from "../../capabilities/database/lib/runtime-config";

/** Replicas of the watcher: one leader and one standing by. */
export const WATCHER_REPLICAS = 2;
/**
 * The installed watcher's peak at 1,000 Databases (bench:scale, OPERATOR=cluster: 410 MiB on
 * 2026-12-07; 516 MiB as a host process on 2026-12-04, before the cache was slimmed), with room.
 */
export const WATCHER_MEMORY = { request: "512Mi", limit: "768Mi" } as const;
/** The emptyDir that holds the one file Pepr's controller writes (the unpacked module). */
export const UNPACKED_MODULE_VOLUME = "unpacked-module";
const CONTROLLER_LABEL = "pepr.dev/controller";

/**
 * Operator settings (capabilities/database/lib/config.ts) passed from the build's environment to
 * the operator's: those that depend on the cluster rather than on the build.
 */
export const SETTINGS_FROM_BUILD_ENV = [
  "PGKEEPER_IMAGE_REPOSITORY",
  "PGKEEPER_POSTGRES_IMAGE",
  "PGKEEPER_POSTGRES_VERSIONS",
  "PGKEEPER_IMAGE_PULL_SECRETS",
  "PGKEEPER_ALLOWED_IMAGES",
] as const;

/**
 * The one customization point: every object Pepr generates for the operator goes through it.
 * `buildEnv` is the environment `pepr build` / `pepr deploy` runs in.
 */
export function customizeManifest<T extends KubernetesObject>(
  object: T,
  buildEnv: Record<string, string | undefined> = process.env,
): T {
  switch (object.kind) {
    case "Deployment":
      return operatorDeployment(object as V1Deployment, buildEnv) as T;
    case "ClusterRole":
      return withoutStoreRules(withoutCrdWrites(object as V1ClusterRole)) as T;
    case "Role":
      return withLeaseRules(object as V1Role) as T;
    case "RoleBinding":
      return boundToTheOperator(object as unknown as V1RoleBinding) as unknown as T;
    default:
      return object;
  }
}

/** Which of Pepr's two Deployments this is ("watcher" or "admission"), from its label. */
const controllerOf = (d: V1Deployment): string | undefined =>
  d.metadata?.labels?.[CONTROLLER_LABEL];

/**
 * Pepr's controller writes the module it unpacks to `/app/module-<hash>.js`, beside the
 * node_modules it runs from (so Node resolves them), and nothing else. On a read-only root that
 * one file is an emptyDir file mounted by subPath; an init container creates it empty first
 * (a subPath that does not exist would be made a directory).
 */
export function unpackedModuleFile(container: V1Container): string {
  const hash = container.args?.at(-1) ?? "";
  if (!/^[0-9a-f]{64}$/.test(hash)) {
    throw new Error(`no module hash as the last argument of container ${container.name}`);
  }
  return `module-${hash}.js`;
}

function operatorDeployment(
  deployment: V1Deployment,
  buildEnv: Record<string, string | undefined>,
): V1Deployment {
  const role = controllerOf(deployment);
  const spec = deployment.spec;
  const pod = spec?.template.spec;
  if (!spec || !pod || (role !== "watcher" && role !== "admission")) return deployment;
  const watcher = role === "watcher";
  const hardened = hardenedPod(
    withoutCpuLimit(withBuildSettings(pod, buildEnv)),
    spec.selector.matchLabels ?? {},
  );
  return {
    ...deployment,
    spec: {
      ...spec,
      ...(watcher ? WATCHER_ROLLOUT : {}),
      template: { ...spec.template, spec: watcher ? withWatcherMemory(hardened) : hardened },
    },
  };
}

/** The main container gets each setting the build's environment has (and Pepr's env has not). */
function withBuildSettings(
  pod: V1PodSpec,
  buildEnv: Record<string, string | undefined>,
): V1PodSpec {
  const [main, ...rest] = pod.containers;
  const present = new Set((main.env ?? []).map(e => e.name));
  const settings = SETTINGS_FROM_BUILD_ENV.filter(
    name => !present.has(name) && (buildEnv[name] ?? "").trim() !== "",
  ).map(name => ({ name, value: (buildEnv[name] ?? "").trim() }));
  if (settings.length === 0) return pod;
  return { ...pod, containers: [{ ...main, env: [...(main.env ?? []), ...settings] }, ...rest] };
}

/** Two watchers, one new pod ready before an old one goes: a standby is there to take the Lease. */
const WATCHER_ROLLOUT: Pick<V1DeploymentSpec, "replicas" | "strategy"> = {
  replicas: WATCHER_REPLICAS,
  strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
};

/** seccomp, a read-only root (but for the unpacked module's file), spread over nodes. */
function hardenedPod(pod: V1PodSpec, appLabels: Record<string, string>): V1PodSpec {
  const [main, ...sidecars] = pod.containers;
  const file = unpackedModuleFile(main);
  const readOnly = { ...main.securityContext, readOnlyRootFilesystem: true };
  return {
    ...pod,
    securityContext: { ...pod.securityContext, seccompProfile: { type: "RuntimeDefault" } },
    affinity: pod.affinity ?? spreadOverNodes(appLabels),
    volumes: [
      ...(pod.volumes ?? []),
      { name: UNPACKED_MODULE_VOLUME, emptyDir: { sizeLimit: "16Mi" } },
    ],
    initContainers: [
      ...(pod.initContainers ?? []),
      {
        name: "unpacked-module-file",
        image: main.image,
        imagePullPolicy: main.imagePullPolicy,
        args: ["-e", `require("fs").writeFileSync("/unpacked/${file}", "")`],
        securityContext: readOnly,
        resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "64Mi" } },
        volumeMounts: [{ name: UNPACKED_MODULE_VOLUME, mountPath: "/unpacked" }],
      },
    ],
    containers: [
      {
        ...main,
        securityContext: readOnly,
        volumeMounts: [
          ...(main.volumeMounts ?? []),
          { name: UNPACKED_MODULE_VOLUME, mountPath: `/app/${file}`, subPath: file },
        ],
      },
      ...sidecars,
    ],
  };
}

/**
 * The main container keeps its CPU request (its share under contention) and loses its CPU limit:
 * a CFS quota stops a burst for the rest of each 100 ms period even on an idle node, and the
 * operator's work comes in bursts whose latency is the product (ADR 0036).
 */
function withoutCpuLimit(pod: V1PodSpec): V1PodSpec {
  const limits = pod.containers[0].resources?.limits;
  if (!limits || !("cpu" in limits)) return pod;
  const { cpu: _cpu, ...others } = limits;
  return withMainResources(pod, resources => ({ ...resources, limits: others }));
}

const withWatcherMemory = (pod: V1PodSpec): V1PodSpec =>
  withMainResources(pod, resources => ({
    ...resources,
    requests: { ...resources?.requests, memory: WATCHER_MEMORY.request },
    limits: { ...resources?.limits, memory: WATCHER_MEMORY.limit },
  }));

/** The pod with its main (first) container's resources changed by `change`. */
function withMainResources(
  pod: V1PodSpec,
  change: (resources: V1Container["resources"]) => V1Container["resources"],
): V1PodSpec {
  const [main, ...rest] = pod.containers;
  return { ...pod, containers: [{ ...main, resources: change(main.resources) }, ...rest] };
}

/** Replicas on different nodes where there are several (preferred: one node still runs both). */
const spreadOverNodes = (labels: Record<string, string>) => ({
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      {
        weight: 100,
        podAffinityTerm: {
          topologyKey: "kubernetes.io/hostname",
          labelSelector: { matchLabels: labels },
        },
      },
    ],
  },
});

const isCrdRule = (rule: V1PolicyRule): boolean =>
  (rule.apiGroups ?? []).includes("apiextensions.k8s.io");

/** pgkeeper's CRDs, which its leader installs (capabilities/database/cluster/crds.ts). */
export const OWN_CRDS = ["databases.pgkeeper.dev", "backups.pgkeeper.dev"];

/**
 * Pepr's scoped RBAC lets its controller create and patch any CRD; it only re-applies its
 * PeprStore CRD at start (which `pepr deploy` creates). pgkeeper's leader reads and applies its
 * own two, by name: a server-side apply that creates is authorized as `patch` and as `create`,
 * both with the object's name (k8s.io/apiserver handlers/patch.go), so even `create` is limited
 * to them.
 */
function withoutCrdWrites(role: V1ClusterRole): V1ClusterRole {
  if (!(role.rules ?? []).some(isCrdRule)) return role;
  return {
    ...role,
    rules: [
      ...(role.rules ?? []).filter(rule => !isCrdRule(rule)),
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        resourceNames: ["peprstores.pepr.dev"],
        verbs: ["patch"],
      },
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        resourceNames: OWN_CRDS,
        verbs: ["get", "create", "patch"],
      },
    ],
  };
}

const isStoreRule = (rule: V1PolicyRule): boolean => (rule.apiGroups ?? []).includes("pepr.dev");

/**
 * What Pepr's controllers do with their PeprStore, which lives in the operator's namespace only
 * (Pepr's scoped ClusterRole grants it everywhere; its store Role names the object `""`, which
 * matches nothing, so the ClusterRole was the grant that worked).
 */
export const STORE_RULE: V1PolicyRule = {
  apiGroups: ["pepr.dev"],
  resources: ["peprstores"],
  verbs: ["create", "get", "list", "patch", "watch"],
};

/** The PeprStore's rules leave the ClusterRole: the store Role holds them (withStoreRules). */
function withoutStoreRules(role: V1ClusterRole): V1ClusterRole {
  if (!(role.rules ?? []).some(isStoreRule)) return role;
  return { ...role, rules: (role.rules ?? []).filter(rule => !isStoreRule(rule)) };
}

/**
 * The Role Pepr binds to the operator in its own namespace (its PeprStore Role): the store's
 * rules that work (STORE_RULE, in place of Pepr's), and the leader-election Lease: `create`
 * cannot be limited to a name, `get` and `update` are.
 */
function withLeaseRules(role: V1Role): V1Role {
  if (!role.metadata?.name?.endsWith("-store")) return role;
  return {
    ...role,
    rules: [
      ...(role.rules ?? []).filter(rule => !isStoreRule(rule)),
      STORE_RULE,
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        resourceNames: [DEFAULT_LEASE_NAME],
        verbs: ["get", "update"],
      },
    ],
  };
}

/**
 * Pepr 1.1.4 binds its store Role to the ServiceAccount `<name>-store`, which it never creates:
 * the binding grants nothing. Bound to the operator's own (`<name>`, the pods' account), the Role
 * grants what it lists, the Lease included.
 */
function boundToTheOperator(binding: V1RoleBinding): V1RoleBinding {
  const name = binding.metadata?.name ?? "";
  if (!name.endsWith("-store")) return binding;
  const account = name.slice(0, -"-store".length);
  return {
    ...binding,
    subjects: (binding.subjects ?? []).map(s =>
      s.kind === "ServiceAccount" && s.name === name ? { ...s, name: account } : s,
    ),
  };
}
