import type { V1Container, V1EnvVar } from "@kubernetes/client-node";
import { DB_NAME, input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { ownerReference } from "./meta";
import { buildStatefulSet, resources } from "./statefulset";
import type { DatabaseSpec } from "../api/database-schema";

const HASH = "a".repeat(64);
const sts = (spec: Partial<DatabaseSpec> = {}) => buildStatefulSet(input(spec), HASH);
const container = (spec: Partial<DatabaseSpec> = {}): V1Container =>
  sts(spec).spec!.template.spec!.containers[0];
const envOf = (c: V1Container): Record<string, V1EnvVar> =>
  Object.fromEntries((c.env ?? []).map(e => [e.name, e]));
const selector = { "pgkeeper.dev/database": DB_NAME, "app.kubernetes.io/component": "instance" };

describe("buildStatefulSet", () => {
  const s = sts({ instances: 3 });

  it.each([
    ["apiVersion", "apps/v1"],
    ["kind", "StatefulSet"],
    ["metadata.name", DB_NAME],
    ["metadata.namespace", NAMESPACE],
    ["spec.replicas", 3],
    ["spec.serviceName", `${DB_NAME}-hl`],
    ["spec.selector", { matchLabels: selector }],
    ["spec.updateStrategy", { type: "OnDelete" }],
    ["spec.podManagementPolicy", "Parallel"],
    ["spec.persistentVolumeClaimRetentionPolicy", { whenDeleted: "Retain", whenScaled: "Retain" }],
    [
      "spec.template.metadata.annotations",
      {
        "pgkeeper.dev/config-hash": HASH,
        "kubectl.kubernetes.io/default-container": "postgres",
      },
    ],
    ["spec.template.spec.enableServiceLinks", false],
    ["spec.template.spec.terminationGracePeriodSeconds", 60],
  ])("sets %s", (path, expected) => {
    expect(s).toHaveProperty(path.split("."), expected);
  });

  it("carries the common labels and one owner reference", () => {
    expect(s.metadata.labels["pgkeeper.dev/database"]).toBe(DB_NAME);
    expect(s.metadata.ownerReferences).toEqual([ownerReference(input().db)]);
  });

  it("labels the pod template with common and selector labels, but no role", () => {
    const labels = s.spec!.template.metadata!.labels!;
    expect(labels).toMatchObject({ ...selector, "app.kubernetes.io/managed-by": "pgkeeper" });
    expect(labels).not.toHaveProperty(["pgkeeper.dev/role"]);
  });

  it.each([
    ["instances", { instances: 5 }],
    ["the image", { image: "example/pg:16" }],
    ["parameters", { postgresql: { parameters: { work_mem: "8MB" } } }],
    ["anti-affinity", { scheduling: { antiAffinity: "required" as const } }],
  ])("keeps the selector when %s change (it is immutable)", (_, spec) => {
    expect(sts(spec).spec!.selector).toEqual({ matchLabels: selector });
  });

  it("carries the time of the last rolling restart asked for, so that each such request rolls every pod", () => {
    const restarted = input({ instances: 3 });
    restarted.db.status = { restart: { requestedAt: "2026-12-07T18:00:00.000Z" } };
    expect(buildStatefulSet(restarted, HASH).spec!.template.metadata!.annotations).toEqual({
      "pgkeeper.dev/config-hash": HASH,
      "pgkeeper.dev/restarted-at": "2026-12-07T18:00:00.000Z",
      "kubectl.kubernetes.io/default-container": "postgres",
    });
  });

  it("is deterministic (no timestamps, same input same object)", () => {
    expect(sts({ instances: 3 })).toEqual(s);
  });
});

describe("postgres container", () => {
  const c = container({ version: "15", image: "registry.local/postgres:15" });

  it.each([
    ["name", "postgres"],
    ["image", "registry.local/postgres:15"],
    ["imagePullPolicy", "IfNotPresent"],
    ["command", ["/bin/sh", "/config/entrypoint.sh"]],
    ["ports", [{ name: "postgres", containerPort: 5432, protocol: "TCP" }]],
    ["lifecycle.preStop.exec.command", ["/bin/sh", "/config/probe.sh", "stop"]],
  ])("sets %s", (path, expected) => {
    expect(c).toHaveProperty(path.split("."), expected);
  });

  it("uses the image derived from the version by default", () => {
    expect(container({ version: "17" }).image).toBe("postgres:17");
  });

  it.each([
    ["PGDATA", { value: "/var/lib/postgresql/data/pgdata" }],
    ["PG_MAJOR", { value: "15" }],
    ["DB_NAME", { value: DB_NAME }],
    ["PRIMARY_HOST", { value: `${DB_NAME}-rw` }],
    ["HEADLESS_SERVICE", { value: `${DB_NAME}-hl` }],
    ["PGHOST", { value: "/controller/run" }],
    ["PGPORT", { value: "5432" }],
    ["PGUSER", { value: "postgres" }],
    ["POD_NAME", { valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
    ["POD_IP", { valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }],
  ])("sets env %s", (name, expected) => {
    expect(envOf(c)[name]).toEqual({ name, ...expected });
  });

  it("puts no credential in the environment: the passwords are files of the credentials volume", () => {
    expect(JSON.stringify(c.env)).not.toMatch(/PASSWORD|secretKeyRef/);
    expect(c.volumeMounts).toContainEqual({
      name: "credentials",
      mountPath: "/credentials",
      readOnly: true,
    });
    const volume = sts().spec!.template.spec!.volumes!.find(v => v.name === "credentials");
    expect(volume).toEqual({
      name: "credentials",
      projected: {
        defaultMode: 0o440,
        sources: [
          {
            secret: {
              name: `${DB_NAME}-superuser`,
              items: [{ key: "password", path: "superuser-password" }],
            },
          },
          {
            secret: { name: `${DB_NAME}-app`, items: [{ key: "password", path: "app-password" }] },
          },
        ],
      },
    });
  });

  it("has no env var twice", () => {
    const names = (c.env ?? []).map(e => e.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each([
    [
      "startupProbe",
      {
        exec: { command: ["/bin/sh", "/config/probe.sh", "ready"] },
        periodSeconds: 5,
        timeoutSeconds: 5,
        failureThreshold: 720,
      },
    ],
    [
      "livenessProbe",
      { tcpSocket: { port: 5432 }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 },
    ],
  ])("has %s", (probe, expected) => {
    expect(c).toHaveProperty(probe, expected);
  });

  it("runs no exec probe after the start: no readiness probe, liveness by a TCP connect (ADR 0039)", () => {
    expect(c.readinessProbe).toBeUndefined();
    expect(c.livenessProbe?.exec).toBeUndefined();
  });

  it("gives startup at least half an hour (initdb, clone, crash recovery)", () => {
    const p = c.startupProbe!;
    expect(p.periodSeconds! * p.failureThreshold!).toBeGreaterThanOrEqual(1800);
  });

  it("gives a restore from a backup a day to start, with the same probe", () => {
    const store = { endpoint: "s3.internal:9000", bucket: "pg", credentials: { secretName: "s3" } };
    const restoring = container({
      bootstrap: { recovery: { source: { objectStore: store, repositoryPath: "/ns/a/1b2c" } } },
    } as Partial<DatabaseSpec>).startupProbe!;
    expect(restoring.exec).toEqual(c.startupProbe!.exec);
    expect(restoring.periodSeconds! * restoring.failureThreshold!).toBe(86400);
  });

  it.each([
    ["runAsNonRoot", true],
    ["allowPrivilegeEscalation", false],
    ["readOnlyRootFilesystem", true],
    ["capabilities", { drop: ["ALL"] }],
    ["seccompProfile", { type: "RuntimeDefault" }],
  ])("container securityContext.%s", (field, expected) => {
    expect(c.securityContext).toHaveProperty(field, expected);
  });

  it.each([
    ["pgdata", "/var/lib/postgresql/data", undefined],
    ["config", "/config", true],
    ["run", "/controller/run", undefined],
    ["tmp", "/tmp", undefined],
  ])("mounts %s at %s", (name, mountPath, readOnly) => {
    expect(c.volumeMounts).toContainEqual({ name, mountPath, ...(readOnly ? { readOnly } : {}) });
  });
});

describe("pod", () => {
  const pod = sts().spec!.template.spec!;

  it.each([
    ["runAsNonRoot", true],
    ["runAsUser", 999],
    ["runAsGroup", 999],
    ["fsGroup", 999],
    ["fsGroupChangePolicy", "OnRootMismatch"],
    ["seccompProfile", { type: "RuntimeDefault" }],
  ])("securityContext.%s", (field, expected) => {
    expect(pod.securityContext).toHaveProperty(field, expected);
  });

  it.each([
    ["config", { configMap: { name: `${DB_NAME}-config` } }],
    ["run", { emptyDir: {} }],
    ["tmp", { emptyDir: {} }],
  ])("has volume %s", (name, source) => {
    expect(pod.volumes).toContainEqual({ name, ...source });
  });

  it("mounts every volume it declares, and only those plus the claim", () => {
    const declared = [...(pod.volumes ?? []).map(v => v.name), "pgdata"].sort();
    expect((pod.containers[0].volumeMounts ?? []).map(m => m.name).sort()).toEqual(declared);
  });
});

describe("scheduling", () => {
  const podOf = (scheduling: DatabaseSpec["scheduling"]) =>
    sts({ scheduling }).spec!.template.spec!;

  it.each<[DatabaseSpec["scheduling"], string | undefined]>([
    [undefined, "preferredDuringSchedulingIgnoredDuringExecution"],
    [{ antiAffinity: "preferred" }, "preferredDuringSchedulingIgnoredDuringExecution"],
    [{ antiAffinity: "required" }, "requiredDuringSchedulingIgnoredDuringExecution"],
    [{ antiAffinity: "none" }, undefined],
  ])("anti-affinity %p uses %p", (scheduling, field) => {
    const anti = podOf(scheduling).affinity?.podAntiAffinity;
    expect(anti ? Object.keys(anti) : []).toEqual(field ? [field] : []);
  });

  it("passes nodeSelector and tolerations", () => {
    const tolerations = [{ key: "db", operator: "Exists", effect: "NoSchedule" }];
    const pod = podOf({ nodeSelector: { pool: "db" }, tolerations });
    expect(pod.nodeSelector).toEqual({ pool: "db" });
    expect(pod.tolerations).toEqual(tolerations);
  });

  it("leaves absent fields out", () => {
    const pod = podOf({ antiAffinity: "none" });
    expect(pod).not.toHaveProperty("nodeSelector");
    expect(pod).not.toHaveProperty("tolerations");
    expect(pod).not.toHaveProperty("affinity");
  });
});

describe("volume claim template", () => {
  it.each([
    [
      { size: "10Gi" },
      { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
    ],
    [
      { size: "1Ti", storageClassName: "fast" },
      {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Ti" } },
        storageClassName: "fast",
      },
    ],
  ])("for storage %p", (storage, spec) => {
    const [claim] = sts({ storage }).spec!.volumeClaimTemplates!;
    expect(claim.metadata?.name).toBe("pgdata");
    expect(claim.metadata?.labels?.["pgkeeper.dev/database"]).toBe(DB_NAME);
    expect(claim.spec).toEqual(spec);
  });
});

describe("resources", () => {
  it.each<[DatabaseSpec["resources"], object]>([
    [undefined, {}],
    [{}, {}],
    [{ requests: {} }, {}],
    [{ requests: { cpu: "500m" } }, { requests: { cpu: "500m" } }],
    [
      { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "2Gi" } },
      { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "2Gi" } },
    ],
  ])("%p gives %p", (res, expected) => {
    expect(resources(input({ resources: res }).spec)).toEqual(expected);
    expect(container({ resources: res }).resources).toEqual(expected);
  });
});
