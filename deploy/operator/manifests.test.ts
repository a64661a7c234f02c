import type { V1ClusterRole, V1Deployment, V1Role, V1RoleBinding } from "@kubernetes/client-node";
import { allCrds } from "../../capabilities/database/api/crd";
import {
  customizeManifest,
  OWN_CRDS,
  UNPACKED_MODULE_VOLUME,
  unpackedModuleFile,
  WATCHER_MEMORY,
  WATCHER_REPLICAS,
} from "./manifests";

const HASH = "a".repeat(64);

/** A Deployment shaped as Pepr 1.1.4 generates them (k8sObjects.ts), cut to what matters here. */
function peprDeployment(controller: "watcher" | "admission"): V1Deployment {
  const app = controller === "watcher" ? "pepr-pgkeeper-watcher" : "pepr-pgkeeper";
  const securityContext = {
    runAsUser: 65532,
    runAsGroup: 65532,
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ["ALL"] },
  };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: app,
      namespace: "pepr-system",
      labels: { app, "pepr.dev/controller": controller },
    },
    spec: {
      replicas: controller === "watcher" ? 1 : 2,
      ...(controller === "watcher" ? { strategy: { type: "Recreate" } } : {}),
      selector: { matchLabels: { app, "pepr.dev/controller": controller } },
      template: {
        metadata: { labels: { app, "pepr.dev/controller": controller } },
        spec: {
          securityContext: { runAsUser: 65532, runAsNonRoot: true, fsGroup: 65532 },
          containers: [
            {
              name: controller === "watcher" ? "watcher" : "server",
              image: "localhost/pgkeeper/controller:dev",
              imagePullPolicy: "IfNotPresent",
              args: ["/app/node_modules/pepr/dist/controller.js", HASH],
              resources: {
                requests: { memory: "256Mi", cpu: "200m" },
                limits: { memory: "512Mi", cpu: "500m" },
              },
              securityContext,
              volumeMounts: [{ name: "tls-certs", mountPath: "/etc/certs", readOnly: true }],
            },
          ],
          volumes: [{ name: "tls-certs", secret: { secretName: "pepr-pgkeeper-tls" } }],
        },
      },
    },
  };
}

describe("customizeManifest: the operator's Deployments", () => {
  it.each(["watcher", "admission"] as const)(
    "gives the %s pods seccomp RuntimeDefault and a read-only root with the one file Pepr writes on an emptyDir",
    controller => {
      const out = customizeManifest(peprDeployment(controller), {});
      const pod = out.spec!.template.spec!;
      const file = `module-${HASH}.js`;
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(pod.containers[0].securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
      expect(pod.containers[0].volumeMounts).toContainEqual({
        name: UNPACKED_MODULE_VOLUME,
        mountPath: `/app/${file}`,
        subPath: file,
      });
      expect(pod.containers[0].volumeMounts).toContainEqual(
        expect.objectContaining({ name: "tls-certs" }),
      );
      expect(pod.volumes).toContainEqual({
        name: UNPACKED_MODULE_VOLUME,
        emptyDir: { sizeLimit: "16Mi" },
      });
      expect(pod.initContainers).toEqual([
        expect.objectContaining({
          name: "unpacked-module-file",
          image: "localhost/pgkeeper/controller:dev",
          args: ["-e", `require("fs").writeFileSync("/unpacked/${file}", "")`],
          securityContext: expect.objectContaining({ readOnlyRootFilesystem: true }),
        }),
      ]);
      expect(pod.affinity?.podAntiAffinity).toBeDefined();
    },
  );

  it("runs two watchers, replaced one at a time with a new one ready first, with memory for the scale bench's peak", () => {
    const out = customizeManifest(peprDeployment("watcher"), {});
    expect(out.spec).toMatchObject({
      replicas: WATCHER_REPLICAS,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    });
    expect(WATCHER_REPLICAS).toBe(2);
    expect(out.spec!.template.spec!.containers[0].resources).toEqual({
      requests: { memory: WATCHER_MEMORY.request, cpu: "200m" },
      limits: { memory: WATCHER_MEMORY.limit },
    });
  });

  it("keeps the admission server's replicas, requests and memory limit as Pepr sets them, without the CPU limit", () => {
    const given = peprDeployment("admission");
    const out = customizeManifest(given, {});
    expect(out.spec!.replicas).toBe(2);
    expect(out.spec!.strategy).toBeUndefined();
    expect(out.spec!.template.spec!.containers[0].resources).toEqual({
      requests: { memory: "256Mi", cpu: "200m" },
      limits: { memory: "512Mi" },
    });
  });

  it("leaves a container with no CPU limit as it is", () => {
    const given = peprDeployment("admission");
    given.spec!.template.spec!.containers[0].resources = { requests: { cpu: "200m" } };
    const out = customizeManifest(given, {});
    expect(out.spec!.template.spec!.containers[0].resources).toEqual({
      requests: { cpu: "200m" },
    });
  });

  it.each<[string, Record<string, string>, { name: string; value?: string }[]]>([
    ["nothing set: nothing added", {}, []],
    [
      "the cluster's settings, trimmed, and nothing else",
      {
        PGKEEPER_IMAGE_REPOSITORY: " registry.example.com/pgkeeper ",
        PGKEEPER_IMAGE_PULL_SECRETS: "regcred",
        PGKEEPER_RESYNC_SECONDS: "5",
        HOME: "/root",
      },
      [
        { name: "PGKEEPER_IMAGE_REPOSITORY", value: "registry.example.com/pgkeeper" },
        { name: "PGKEEPER_IMAGE_PULL_SECRETS", value: "regcred" },
      ],
    ],
    ["blank values are not settings", { PGKEEPER_POSTGRES_VERSIONS: " " }, []],
  ])(
    "takes the build environment's operator settings into both Deployments: %s",
    (_, env, added) => {
      for (const controller of ["watcher", "admission"] as const) {
        const given = peprDeployment(controller);
        const before = given.spec!.template.spec!.containers[0].env ?? [];
        const out = customizeManifest(given, env);
        expect(out.spec!.template.spec!.containers[0].env ?? []).toEqual([...before, ...added]);
      }
    },
  );

  it("changes nothing in what it is given (a new object comes back)", () => {
    const given = peprDeployment("watcher");
    const copy = JSON.parse(JSON.stringify(given)) as V1Deployment;
    customizeManifest(given, {});
    expect(given).toEqual(copy);
  });

  it("leaves a Deployment that is not one of Pepr's alone", () => {
    const other: V1Deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "x" },
    };
    expect(customizeManifest(other)).toBe(other);
  });

  it.each([
    ["no arguments", undefined],
    ["a last argument that is not a hash", ["/app/node_modules/pepr/dist/controller.js", "latest"]],
  ])("refuses a Pepr container with %s: no file to make writable", (_, args) => {
    expect(() => unpackedModuleFile({ name: "watcher", args })).toThrow(
      "no module hash as the last argument of container watcher",
    );
  });
});

describe("customizeManifest: RBAC", () => {
  it("narrows Pepr's create-and-patch-any-CRD rule to patching its PeprStore CRD, keeping the rest in order", () => {
    const role: V1ClusterRole = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "pepr-pgkeeper" },
      rules: [
        { apiGroups: ["pgkeeper.dev"], resources: ["databases"], verbs: ["get"] },
        {
          apiGroups: ["apiextensions.k8s.io"],
          resources: ["customresourcedefinitions"],
          verbs: ["patch", "create"],
        },
        { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
        { apiGroups: ["pepr.dev"], resources: ["peprstores"], verbs: ["list", "watch"] },
      ],
    };
    // The PeprStore's rules go too: the store Role in the operator's namespace holds them.
    expect(customizeManifest(role).rules).toEqual([
      { apiGroups: ["pgkeeper.dev"], resources: ["databases"], verbs: ["get"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        resourceNames: ["peprstores.pepr.dev"],
        verbs: ["patch"],
      },
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        resourceNames: ["databases.pgkeeper.dev", "backups.pgkeeper.dev"],
        verbs: ["get", "create", "patch"],
      },
    ]);
  });

  it("names exactly the CRDs the operator installs", () => {
    expect(OWN_CRDS).toEqual(allCrds().map(crd => (crd.metadata as { name: string }).name));
  });

  it("grants the PeprStore (in place of Pepr's rule for the name \"\") and the leader-election Lease, get and update by name only, in the operator's namespace", () => {
    const store: V1Role = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "pepr-pgkeeper-store", namespace: "pepr-system" },
      rules: [
        {
          apiGroups: ["pepr.dev"],
          resources: ["peprstores"],
          resourceNames: [""],
          verbs: ["create", "get", "patch", "watch"],
        },
      ],
    };
    expect(customizeManifest(store).rules).toEqual([
      {
        apiGroups: ["pepr.dev"],
        resources: ["peprstores"],
        verbs: ["create", "get", "list", "patch", "watch"],
      },
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        resourceNames: ["pgkeeper-leader"],
        verbs: ["get", "update"],
      },
    ]);
  });

  it("binds the store Role to the operator's ServiceAccount (Pepr names one that does not exist)", () => {
    const binding: V1RoleBinding = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "pepr-pgkeeper-store", namespace: "pepr-system" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pepr-pgkeeper-store" },
      subjects: [{ kind: "ServiceAccount", name: "pepr-pgkeeper-store", namespace: "pepr-system" }],
    };
    expect(customizeManifest(binding)).toEqual({
      ...binding,
      subjects: [{ kind: "ServiceAccount", name: "pepr-pgkeeper", namespace: "pepr-system" }],
    });
    const other: V1RoleBinding = { ...binding, metadata: { name: "other" } };
    expect(customizeManifest(other)).toBe(other);
  });

  it("passes other kinds and other Roles through unchanged", () => {
    const other: V1Role = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "x" },
    };
    expect(customizeManifest(other)).toBe(other);
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } };
    expect(customizeManifest(secret)).toBe(secret);
  });
});
