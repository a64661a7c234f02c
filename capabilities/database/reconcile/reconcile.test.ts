import { Database } from "../api/database";
import { DatabaseSpec } from "../api/database-schema";
import {
  ANNOTATION_CONFIG_HASH,
  ANNOTATION_RESTART,
  ANNOTATION_RESTARTED_AT,
  LABEL_DATABASE,
  LABEL_ROLE,
  commonLabels,
  selectorLabels,
} from "../api/names";
import { DEFAULT_CONFIG } from "../lib/config";
import { KubeObject } from "../cluster/cluster";
import { ANNOTATION_APPLIED_HASH } from "./diff";
import { LEAF_LIFETIME_DAYS, RENEW_BEFORE_DAYS } from "../pki/policy";
import { KubeApiError } from "../lib/kube-api";
import { ReconcileError } from "../lib/errors";
import { ConvergedChildren } from "./converged-children";
import { recordFailure } from "./failure";
import { LEGACY_FINALIZER, ReconcileDeps, reconcile } from "./reconcile";
import { FakeCluster } from "../../../test/unit/fake-cluster";

const NS = "prod";
const NAME = "orders";

function setup(spec: Partial<DatabaseSpec> = {}, extra: Partial<Database["metadata"]> = {}) {
  const cluster = new FakeCluster();
  let t = Date.parse("2026-11-29T10:00:00Z");
  const denials: { field: string; message: string }[] = [];
  let passwordCounter = 0;
  const deps: ReconcileDeps = {
    cluster,
    config: DEFAULT_CONFIG,
    now: () => new Date(t),
    validate: () => denials,
    newPassword: () => `pw-${++passwordCounter}`,
    converged: new ConvergedChildren(),
  };
  const db = cluster.addDatabase({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name: NAME, namespace: NS, ...extra },
    spec: { version: "16", storage: { size: "1Gi" }, ...spec },
  } as Database);
  const run = () => reconcile(deps, NS, NAME);
  const stored = () => cluster.databases.get(`${NS}/${NAME}`)!;
  const updateSpec = (patch: Partial<DatabaseSpec>) => {
    const s = stored();
    s.spec = { ...s.spec!, ...patch };
    s.metadata!.generation = (s.metadata!.generation ?? 1) + 1;
  };
  const advance = (ms: number) => (t += ms);
  const addPod = (ordinal: number, ready: boolean) =>
    cluster.put({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `${NAME}-${ordinal}`,
        namespace: NS,
        labels: { ...commonLabels(NAME), ...selectorLabels(NAME) },
      },
      status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
    });
  return { cluster, deps, db, run, stored, updateSpec, advance, addPod, denials };
}

const childKinds = (cluster: FakeCluster) =>
  [...cluster.objects.values()]
    .filter(o => o.kind !== "Pod")
    .map(o => `${o.kind}/${o.metadata?.name}`)
    .sort();

describe("reconcile: creating children", () => {
  it("creates every child, owned by the Database and labelled", async () => {
    const { cluster, db, run } = setup();
    await run();
    const children = [...cluster.objects.values()];
    expect(childKinds(cluster)).toEqual(
      expect.arrayContaining([
        "ConfigMap/orders-config",
        "Secret/orders-app",
        "Secret/orders-superuser",
        "Service/orders-hl",
        "Service/orders-ro",
        "Service/orders-rw",
        "StatefulSet/orders",
      ]),
    );
    for (const child of children) {
      expect(child.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ uid: db.metadata?.uid, controller: true, kind: "Database" }),
      ]);
      expect(child.metadata?.labels?.[LABEL_DATABASE]).toBe(NAME);
      expect(child.metadata?.annotations?.[ANNOTATION_APPLIED_HASH]).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(cluster.events.map(e => e.reason)).toContain("ChildrenCreated");
  });

  it("a pass that fails at the StatefulSet still tells what it created, and the next tells the rest", async () => {
    const { cluster, run } = setup();
    cluster.failNextOn.set("create StatefulSet", {
      status: 500,
      data: { message: "etcd timeout" },
    });
    await expect(run()).rejects.toMatchObject({ status: 500 });
    const created = () =>
      cluster.events.filter(e => e.reason === "ChildrenCreated").map(e => e.message);
    expect(created()).toEqual([expect.stringContaining("Secret orders-superuser")]);
    expect(created()[0]).not.toContain("StatefulSet");
    await run();
    expect(created()).toHaveLength(2);
    expect(created()[1]).toMatch(/^Created: .*StatefulSet orders/);
    expect(created()[1]).not.toContain("Secret orders-superuser");
  });

  it("creates no CronJob and no PDB for a single instance", async () => {
    const { cluster, run } = setup();
    await run();
    expect(childKinds(cluster).filter(k => /CronJob|PodDisruptionBudget/.test(k))).toEqual([]);
  });

  it("makes zero writes once converged (idempotent)", async () => {
    const { cluster, run } = setup();
    await run();
    const before = cluster.mutatingCalls;
    const versions = [...cluster.objects.values()].map(o => o.metadata?.resourceVersion);
    const report = await run();
    const again = await run();
    expect(report.writes).toBe(0);
    expect(again.writes).toBe(0);
    expect(cluster.mutatingCalls).toBe(before);
    expect([...cluster.objects.values()].map(o => o.metadata?.resourceVersion)).toEqual(versions);
  });

  it("issues the backup certificates once, keeps them, and renews them before they end", async () => {
    const objectStore = {
      endpoint: "s3.internal",
      bucket: "pg",
      credentials: { secretName: "s3" },
    };
    const { cluster, run, advance } = setup({ instances: 2, backup: { objectStore } });
    await run();
    const tls = () =>
      cluster.find("Secret", NS, "orders-backup-tls")?.data as Record<string, string>;
    const first = tls();
    expect(Object.keys(first).sort()).toEqual([
      "ca.crt",
      "client.crt",
      "client.key",
      "server.crt",
      "server.key",
    ]);
    // Issued by the Database's one CA, which the Secret trusts alone (ADR 0021).
    const caSecret = () => cluster.find("Secret", NS, "orders-ca")?.data as Record<string, string>;
    expect(first["ca.crt"]).toBe(caSecret()["ca.crt"]);
    expect((await run()).writes).toBe(0);
    expect(tls()).toEqual(first);
    advance((LEAF_LIFETIME_DAYS - RENEW_BEFORE_DAYS + 1) * 24 * 3600 * 1000);
    await run();
    expect(tls()["server.crt"]).not.toBe(first["server.crt"]);
    expect(tls()["client.crt"]).not.toBe(first["client.crt"]);
    expect(tls()["ca.crt"]).toBe(first["ca.crt"]);
    expect((await run()).writes).toBe(0);
  });

  it("fails a Backup of a Database with no object store, and leaves other Databases' Backups alone", async () => {
    const { cluster, run } = setup();
    const backupOf = (name: string, database: string) =>
      cluster.put({
        apiVersion: "pgkeeper.dev/v1alpha1",
        kind: "Backup",
        metadata: { name, namespace: NS },
        spec: { database },
      });
    backupOf("mine", NAME);
    backupOf("theirs", "other");
    await run();
    expect(cluster.find("Backup", NS, "mine")?.status).toMatchObject({
      phase: "Failed",
      message: expect.stringMatching(/has no spec.backup.objectStore/),
    });
    expect(cluster.find("Backup", NS, "theirs")?.status).toBeUndefined();
    expect((await run()).writes).toBe(0);
  });

  it("makes one Backup per scheduled time with an object store, and comes back at the next", async () => {
    const objectStore = {
      endpoint: "s3.internal",
      bucket: "pg",
      credentials: { secretName: "s3" },
    };
    const { cluster, run, advance } = setup({ backup: { objectStore, schedule: "*/5 * * * *" } });
    const backups = () =>
      [...cluster.objects.values()].filter(o => o.kind === "Backup").map(o => o.metadata?.name);
    const first = await run(); // 10:00:00, a fire time
    expect(backups()).toEqual(["orders-202611291000"]);
    expect(first.requeueAfterMs).toBeLessThanOrEqual(5 * 60_000);
    await run();
    expect(backups()).toEqual(["orders-202611291000"]);
    advance(5 * 60_000);
    await run();
    expect(backups()).toEqual(["orders-202611291000", "orders-202611291005"]);
    expect(cluster.find("CronJob", NS, "orders-backup")).toBeUndefined();
  });

  it("generates passwords once and never again, even when the spec changes", async () => {
    const { cluster, run, updateSpec } = setup();
    await run();
    const password = (cluster.find("Secret", NS, "orders-app")?.data as Record<string, string>)
      .password;
    updateSpec({ instances: 3 });
    await run();
    expect(
      (cluster.find("Secret", NS, "orders-app")?.data as Record<string, string>).password,
    ).toBe(password);
    expect(Buffer.from(password, "base64").toString()).toMatch(/^pw-\d$/);
  });
});

describe("reconcile: changes and drift", () => {
  it("updates the StatefulSet when the spec changes, and reports it", async () => {
    const { cluster, run, updateSpec } = setup();
    await run();
    updateSpec({ instances: 3 });
    const report = await run();
    expect(report.writes).toBeGreaterThan(0);
    expect((cluster.find("StatefulSet", NS, NAME)?.spec as { replicas: number }).replicas).toBe(3);
    expect(cluster.events.map(e => e.reason)).toContain("ChildrenUpdated");
  });

  it.each([
    [
      "a Service selector edited by hand",
      (o: KubeObject) => ((o.spec as Record<string, unknown>).selector = { app: "other" }),
      "Service",
      "orders-rw",
    ],
    [
      "a ConfigMap key removed by hand",
      (o: KubeObject) => (o.data = {}),
      "ConfigMap",
      "orders-config",
    ],
  ])("repairs %s", async (_name, edit, kind, name) => {
    const { cluster, run } = setup();
    await run();
    await run(); // a pass that found every child as wanted, and remembered it
    const live = structuredClone(cluster.find(kind, NS, name)!);
    edit(live);
    cluster.put(live); // a new resourceVersion, as the apiserver gives every write
    await run();
    const events = cluster.events.filter(e => e.reason === "DriftRepaired");
    expect(events).toHaveLength(1);
    expect(events[0].message).toContain(`${kind} ${name}`);
    const report = await run();
    expect(report.writes).toBe(0);
  });

  it("recreates a deleted child", async () => {
    const { cluster, run } = setup();
    await run();
    cluster.objects.delete(`Service/${NS}/orders-rw`);
    await run();
    expect(cluster.find("Service", NS, "orders-rw")).toBeDefined();
  });

  it("keeps labels others added to a child", async () => {
    const { cluster, run } = setup();
    await run();
    await run();
    const svc = structuredClone(cluster.find("Service", NS, "orders-rw")!);
    svc.metadata!.labels = { ...svc.metadata!.labels, "team.example/cost-center": "42" };
    cluster.put(svc);
    const report = await run();
    expect(report.writes).toBe(0);
  });

  it("prunes the backup CronJob an earlier version made, and keeps its volume of backups", async () => {
    const { cluster, db, run } = setup({
      backup: { schedule: "0 3 * * *", volume: { size: "2Gi" } },
    });
    await run();
    const uid = db.metadata!.uid!;
    const ours = (kind: string, name: string) => ({
      apiVersion: kind === "CronJob" ? "batch/v1" : "v1",
      kind,
      metadata: {
        name,
        namespace: NS,
        labels: { [LABEL_DATABASE]: NAME },
        ownerReferences: [
          {
            apiVersion: "pgkeeper.dev/v1alpha1",
            kind: "Database",
            name: NAME,
            uid,
            controller: true,
          },
        ],
      },
      spec: {},
    });
    cluster.put(ours("CronJob", "orders-backup"));
    cluster.put(ours("PersistentVolumeClaim", "orders-backups"));
    await run();
    expect(cluster.find("CronJob", NS, "orders-backup")).toBeUndefined();
    expect(cluster.find("PersistentVolumeClaim", NS, "orders-backups")).toBeDefined();
    expect(cluster.events.map(e => e.reason)).toContain("ChildrenDeleted");
  });

  it("grows storage by expanding claims and recreating the StatefulSet without its pods", async () => {
    const { cluster, run, updateSpec } = setup();
    await run();
    cluster.put({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "pgdata-orders-0", namespace: NS, labels: { [LABEL_DATABASE]: NAME } },
      spec: { resources: { requests: { storage: "1Gi" } } },
    });
    updateSpec({ storage: { size: "5Gi" } });
    await run();
    expect(cluster.calls.resizeClaim).toBe(1);
    expect(
      (
        cluster.find("PersistentVolumeClaim", NS, "pgdata-orders-0")?.spec as {
          resources: { requests: { storage: string } };
        }
      ).resources.requests.storage,
    ).toBe("5Gi");
    expect(cluster.find("StatefulSet", NS, NAME)).toBeDefined();
  });

  it("owns each data claim, and only then has the StatefulSet retain its claims (a Database from before)", async () => {
    const { cluster, db, run } = setup();
    await run();
    const sts = cluster.find("StatefulSet", NS, NAME)!;
    // As an earlier version left it: claims deleted with the StatefulSet, which controls them.
    (sts.spec as Record<string, unknown>).persistentVolumeClaimRetentionPolicy = {
      whenDeleted: "Delete",
      whenScaled: "Retain",
    };
    const stsOwner = { apiVersion: "apps/v1", kind: "StatefulSet", name: NAME, uid: "sts-uid" };
    for (const name of ["pgdata-orders-0", "pgdata-orders-1"])
      cluster.put({
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: {
          name,
          namespace: NS,
          labels: commonLabels(NAME),
          ownerReferences: [{ ...stsOwner, controller: true }],
        },
      });
    const order: string[] = [];
    const { addOwnerReference, apply } = cluster;
    cluster.addOwnerReference = (ref, owner) => {
      order.push(`own ${ref.name}`);
      return addOwnerReference.call(cluster, ref, owner);
    };
    cluster.apply = obj => {
      if (obj.kind === "StatefulSet") order.push("StatefulSet");
      return apply.call(cluster, obj);
    };
    await run();
    expect(order).toEqual(["own pgdata-orders-0", "own pgdata-orders-1", "StatefulSet"]);
    for (const name of ["pgdata-orders-0", "pgdata-orders-1"])
      expect(cluster.find("PersistentVolumeClaim", NS, name)?.metadata?.ownerReferences).toEqual([
        { ...stsOwner, controller: true },
        expect.objectContaining({ kind: "Database", uid: db.metadata?.uid, controller: false }),
      ]);
    expect(
      (cluster.find("StatefulSet", NS, NAME)?.spec as Record<string, unknown>)
        .persistentVolumeClaimRetentionPolicy,
    ).toEqual({ whenDeleted: "Retain", whenScaled: "Retain" });
    // Converged: nothing more to own.
    await run();
    expect(order).toHaveLength(3);
  });

  it("recreates a StatefulSet made with pods in order (an earlier version) without its pods", async () => {
    const { cluster, run } = setup();
    await run();
    const live = cluster.find("StatefulSet", NS, NAME)!;
    (live.spec as Record<string, unknown>).podManagementPolicy = "OrderedReady";
    await run();
    expect(cluster.deletions).toEqual([{ ref: `StatefulSet/${NS}/${NAME}`, orphan: true }]);
    expect(cluster.calls.resizeClaim).toBe(0);
    expect(
      (cluster.find("StatefulSet", NS, NAME)?.spec as Record<string, unknown>).podManagementPolicy,
    ).toBe("Parallel");
  });

  it("does not restart pods for a config change by timestamp: the template carries a config hash", async () => {
    const { cluster, run } = setup();
    await run();
    const sts = cluster.find("StatefulSet", NS, NAME)!;
    const annotations = (
      sts.spec as { template: { metadata: { annotations: Record<string, string> } } }
    ).template.metadata.annotations;
    expect(annotations[ANNOTATION_CONFIG_HASH]).toMatch(/^[0-9a-f]+$/);
  });
});

describe("reconcile: objects we do not own", () => {
  it("refuses to touch a foreign object with a child's name and reports it", async () => {
    const { cluster, deps, run } = setup();
    const foreign = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "orders-config", namespace: NS },
      data: { mine: "yes" },
    };
    cluster.put(foreign);
    await expect(run()).rejects.toThrow(ReconcileError);
    await expect(run()).rejects.toMatchObject({ reason: "OwnershipConflict" });
    expect(cluster.find("ConfigMap", NS, "orders-config")?.data).toEqual({ mine: "yes" });

    await recordFailure(deps, { namespace: NS, name: NAME }, await run().catch(e => e), 2, 2000);
    const status = cluster.databases.get(`${NS}/${NAME}`)!.status!;
    expect(status.conditions?.find(c => c.type === "Reconciled")).toMatchObject({
      status: "False",
      reason: "OwnershipConflict",
    });
    expect(status.retry).toMatchObject({ attempts: 2, nextRetryTime: "2026-11-29T10:00:02.000Z" });
    expect(cluster.events.filter(e => e.type === "Warning").map(e => e.reason)).toEqual([
      "OwnershipConflict",
    ]);

    // The same failure again: status retry info moves, but no second Warning Event.
    await recordFailure(deps, { namespace: NS, name: NAME }, await run().catch(e => e), 3, 4000);
    expect(cluster.events.filter(e => e.type === "Warning")).toHaveLength(1);

    // The cause removed: the next reconcile converges and clears the retry info.
    cluster.objects.delete(`ConfigMap/${NS}/orders-config`);
    await run();
    const healed = cluster.databases.get(`${NS}/${NAME}`)!.status!;
    expect(healed.retry).toBeUndefined();
    expect(healed.conditions?.find(c => c.type === "Reconciled")).toMatchObject({
      status: "True",
      reason: "Converged",
    });
  });

  it("records an API refusal with the apiserver's reason, not only its status code", async () => {
    const { cluster, deps } = setup();
    const refusal = new KubeApiError(
      403,
      {
        kind: "Status",
        reason: "Forbidden",
        message:
          'persistentvolumeclaims "pgdata-orders-0" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
      },
      "PATCH",
      "/api/v1/namespaces/prod/persistentvolumeclaims/pgdata-orders-0",
    );
    await recordFailure(deps, { namespace: NS, name: NAME }, refusal, 1, 1000);
    const reconciled = cluster.databases
      .get(`${NS}/${NAME}`)!
      .status!.conditions?.find(c => c.type === "Reconciled");
    expect(reconciled?.message).toBe(
      'PATCH /api/v1/namespaces/prod/persistentvolumeclaims/pgdata-orders-0: HTTP 403 Forbidden: persistentvolumeclaims "pgdata-orders-0" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
  });

  it("refuses a foreign Secret instead of reading its password", async () => {
    const { cluster, run } = setup();
    cluster.put({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "orders-app", namespace: NS },
      data: { password: "c2VjcmV0" },
    });
    await expect(run()).rejects.toMatchObject({ reason: "OwnershipConflict" });
    expect(cluster.calls.apply).toBe(0);
  });

  it("never regenerates a password that went missing from our own Secret", async () => {
    const { cluster, run } = setup();
    await run();
    cluster.find("Secret", NS, "orders-app")!.data = {};
    await expect(run()).rejects.toMatchObject({ reason: "SecretDamaged" });
  });

  it("does not prune a foreign object that happens to carry an obsolete child's name", async () => {
    const { cluster, run } = setup();
    cluster.put({
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "orders-backup", namespace: NS },
    });
    await run();
    expect(cluster.find("CronJob", NS, "orders-backup")).toBeDefined();
  });
});

describe("reconcile: pods that copy an instance's labels", () => {
  it("are no instances: no TLS transition in pg_hba.conf, no role label, not counted", async () => {
    const { cluster, run, stored } = setup({ instances: 2 });
    await run();
    const config = () => cluster.find("ConfigMap", NS, "orders-config")?.data;
    const before = config();
    const labels = { ...commonLabels(NAME), ...selectorLabels(NAME) };
    const statefulSet = { apiVersion: "apps/v1", kind: "StatefulSet", name: NAME, uid: "s" };
    // The instances: the StatefulSet's, with the TLS volume.
    for (const n of [0, 1])
      cluster.put({
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          name: `${NAME}-${n}`,
          namespace: NS,
          labels,
          ownerReferences: [{ ...statefulSet, controller: true }],
        },
        spec: { volumes: [{ name: "tls" }] },
        status: { conditions: [{ type: "Ready", status: "True" }] },
      });
    // Copies, none with the TLS volume: a bare pod past the instance count, another controller's
    // pod, and one not named like an instance.
    const copies: [string, object[]][] = [
      [`${NAME}-5`, []],
      [
        `${NAME}-2`,
        [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "x", uid: "r", controller: true }],
      ],
      [`${NAME}-backdoor`, [{ ...statefulSet, controller: true }]],
    ];
    for (const [name, ownerReferences] of copies)
      cluster.put({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: NS, labels, ownerReferences } as KubeObject["metadata"],
        status: { conditions: [{ type: "Ready", status: "True" }] },
      });
    await run();
    expect(config()).toEqual(before);
    for (const [name] of copies)
      expect(cluster.find("Pod", NS, name)?.metadata?.labels?.[LABEL_ROLE]).toBeUndefined();
    expect(stored().status).toMatchObject({ readyInstances: 2 });
  });
});

describe("reconcile: status", () => {
  it("labels instance pods by role and reports readiness", async () => {
    const { cluster, run, addPod, stored } = setup({ instances: 2 });
    await run();
    addPod(0, true);
    addPod(1, false);
    const report = await run();
    expect(cluster.find("Pod", NS, "orders-0")?.metadata?.labels?.[LABEL_ROLE]).toBe("primary");
    expect(cluster.find("Pod", NS, "orders-1")?.metadata?.labels?.[LABEL_ROLE]).toBe("replica");
    expect(stored().status).toMatchObject({
      phase: "Degraded",
      readyInstances: 1,
      currentPrimary: "orders-0",
    });
    expect(report.requeueAfterMs).toBeGreaterThan(0);
  });

  it.each([
    ["no pods yet", [], "Creating"],
    ["primary ready, replica not", [true, false], "Degraded"],
    ["all ready", [true, true], "Ready"],
  ])("phase with %s", async (_n, readiness, phase) => {
    const { run, addPod, stored } = setup({ instances: 2 });
    (readiness as boolean[]).forEach((ready, i) => addPod(i, ready));
    await run();
    expect(stored().status?.phase).toBe(phase);
  });

  it("keeps lastTransitionTime while the condition holds, and moves it on a flip", async () => {
    const { run, addPod, stored, advance, cluster } = setup();
    addPod(0, false);
    await run();
    const t1 = stored().status?.conditions?.find(c => c.type === "Ready")?.lastTransitionTime;
    advance(60_000);
    await run();
    expect(stored().status?.conditions?.find(c => c.type === "Ready")?.lastTransitionTime).toBe(t1);
    cluster.find("Pod", NS, "orders-0")!.status = {
      conditions: [{ type: "Ready", status: "True" }],
    };
    advance(60_000);
    await run();
    const ready = stored().status?.conditions?.find(c => c.type === "Ready");
    expect(ready).toMatchObject({ status: "True", lastTransitionTime: "2026-11-29T10:02:00.000Z" });
    expect(cluster.events.map(e => e.reason)).toContain("DatabaseReady");
  });

  it("counts a terminating pod as not ready", async () => {
    const { cluster, run, addPod, stored } = setup();
    addPod(0, true);
    await run();
    expect(stored().status?.phase).toBe("Ready");
    cluster.find("Pod", NS, "orders-0")!.metadata!.deletionTimestamp = "2026-11-29T10:00:00Z";
    await run();
    expect(stored().status).toMatchObject({ phase: "Degraded", readyInstances: 0 });
  });

  it("writes status only when it changed", async () => {
    const { cluster, run, addPod } = setup();
    addPod(0, true);
    await run();
    const writes = cluster.calls.patchStatus;
    await run();
    expect(cluster.calls.patchStatus).toBe(writes);
  });

  it("sets observedGeneration to the reconciled generation", async () => {
    const { run, stored, updateSpec } = setup();
    await run();
    updateSpec({ instances: 2 });
    await run();
    expect(stored().status?.observedGeneration).toBe(2);
  });
});

describe("reconcile: guards", () => {
  it("honours paused: no children, status says so", async () => {
    const { cluster, run, stored } = setup({ paused: true });
    await run();
    expect(cluster.calls.apply).toBe(0);
    expect(stored().status).toMatchObject({ phase: "Paused" });
    expect(stored().status?.conditions?.[0]).toMatchObject({
      type: "Reconciled",
      status: "False",
      reason: "Paused",
    });
  });

  it("rejects an invalid spec (admitted while the webhook was down) without touching children", async () => {
    const { cluster, run, stored, denials } = setup();
    denials.push({ field: "spec.instances", message: "spec.instances: must be between 1 and 9" });
    await run();
    await run();
    expect(cluster.calls.apply).toBe(0);
    expect(stored().status).toMatchObject({ phase: "Failed" });
    expect(cluster.events.filter(e => e.reason === "InvalidSpec")).toHaveLength(1);
  });

  it("keeps the running instances in care under a refused new generation: the steps that keep them safe still run", async () => {
    const { cluster, run, stored, denials, addPod, updateSpec } = setup();
    await run();
    addPod(0, true);
    // An edit admitted while the webhook was down, which the rules refuse.
    updateSpec({ postgresql: { parameters: { fsync: "off" } } } as never);
    denials.push({ field: "spec.postgresql.parameters[fsync]", message: "cannot be set" });
    const applied = cluster.calls.apply;
    await run();
    expect(stored().status).toMatchObject({ phase: "Failed" });
    expect(cluster.calls.apply).toBe(applied); // nothing of the refused spec is applied
    // Role labels (the -rw Service's selector) are kept, as high availability is.
    expect(cluster.find("Pod", NS, "orders-0")?.metadata?.labels?.[LABEL_ROLE]).toBe("primary");
  });

  it("keeps reconciling a generation reconciled before, which a rule added since refuses (a newer operator)", async () => {
    const { cluster, run, stored, denials } = setup();
    await run();
    expect(stored().status?.observedGeneration).toBe(1);
    // The operator is upgraded; its rules now refuse the unchanged spec.
    denials.push({ field: "spec.postgresql.parameters[fsync]", message: "cannot be set" });
    await cluster.delete({ apiVersion: "v1", kind: "Service", namespace: NS, name: "orders-rw" });
    await run();
    expect(cluster.find("Service", NS, "orders-rw")).toBeDefined(); // still converging
    expect(stored().status?.phase).not.toBe("Failed");
    expect(cluster.events.filter(e => e.reason === "InvalidSpec")).toEqual([]);
  });

  it("removes the finalizer earlier versions added (Pepr's), and only that one", async () => {
    const { cluster, run } = setup(
      {},
      {
        deletionTimestamp: "2026-11-29T09:00:00Z" as never,
        finalizers: [LEGACY_FINALIZER, "other/keep"],
      },
    );
    expect((await run()).writes).toBe(1);
    expect(cluster.databases.get(`${NS}/${NAME}`)?.metadata?.finalizers).toEqual(["other/keep"]);
    expect(cluster.calls.apply).toBe(0);
  });

  it("does nothing for a deleting Database without our finalizer (garbage collection does the rest)", async () => {
    const { cluster, run } = setup({}, { deletionTimestamp: "2026-11-29T09:00:00Z" as never });
    const report = await run();
    expect(report.writes).toBe(0);
    expect(cluster.mutatingCalls).toBe(0);
  });

  it("does nothing for a Database that no longer exists", async () => {
    const { cluster, deps } = setup();
    expect(await reconcile(deps, NS, "gone")).toEqual({ writes: 0, gone: true });
    expect(cluster.mutatingCalls).toBe(0);
  });

  it("settles the Backups of a Database that does not exist: waiting, or the outcome of a Job the deletion cut off", async () => {
    const { cluster, deps } = setup();
    const backup = (name: string, status?: Record<string, unknown>) =>
      cluster.put({
        apiVersion: "pgkeeper.dev/v1alpha1",
        kind: "Backup",
        metadata: { name, namespace: NS },
        spec: { database: "gone" },
        ...(status ? { status } : {}),
      });
    backup("early");
    backup("cut-off", { phase: "Running", job: "cut-off" });
    cluster.put({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "cut-off", namespace: NS },
      status: { failed: 1 },
    });
    expect(await reconcile(deps, NS, "gone")).toMatchObject({ gone: true });
    expect(cluster.find("Backup", NS, "early")?.status).toMatchObject({
      phase: "Pending",
      message: `waits for Database gone, which does not exist in namespace ${NS}`,
    });
    expect(cluster.find("Backup", NS, "cut-off")?.status).toMatchObject({ phase: "Failed" });
    expect(await reconcile(deps, NS, "gone")).toEqual({ writes: 0, gone: true });
  });

  it("propagates API errors so the queue retries with backoff", async () => {
    const { cluster, run } = setup();
    cluster.failNext.set("create", { status: 500, data: { message: "etcd timeout" } });
    await expect(run()).rejects.toMatchObject({ status: 500 });
    await run();
    expect(cluster.find("StatefulSet", NS, NAME)).toBeDefined();
  });
});

describe("reconcile: a major upgrade (spec.version raised)", () => {
  const postgresOf = (sts: KubeObject | undefined) => {
    const spec = sts?.spec as {
      replicas: number;
      template: {
        spec: {
          containers: { name: string; image: string; env: { name: string; value?: string }[] }[];
        };
      };
    };
    const c = spec.template.spec.containers.find(x => x.name === "postgres")!;
    return {
      replicas: spec.replicas,
      image: c.image,
      major: c.env.find(e => e.name === "PG_MAJOR")?.value,
    };
  };
  /** The StatefulSet controller's part: every instance pod gone. */
  const removePods = (cluster: FakeCluster): void => {
    for (const [key, o] of [...cluster.objects]) if (o.kind === "Pod") cluster.objects.delete(key);
  };
  const upgradeJob = (cluster: FakeCluster, name = `${NAME}-upgrade`) =>
    cluster.find("Job", NS, name);
  const checkJobName = `${NAME}-upgrade-check`;
  const endJob = (
    cluster: FakeCluster,
    status: object,
    message: string,
    name = `${NAME}-upgrade`,
  ) => {
    const job = upgradeJob(cluster, name)!;
    cluster.put({ ...job, status });
    cluster.put({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `${name}-x1`,
        namespace: NS,
        labels: {
          ...commonLabels(NAME),
          "app.kubernetes.io/component": "upgrade",
          "job-name": name,
        },
      },
      status: { containerStatuses: [{ state: { terminated: { exitCode: 0, message } } }] },
    });
  };
  /** The check Job's pass: made on the pass after the rise recorded Checking, then ended. */
  const checked = async (
    cluster: FakeCluster,
    run: () => Promise<unknown>,
    outcome: { status: object; message: string },
  ) => {
    await run();
    expect(upgradeJob(cluster, checkJobName)).toBeDefined();
    endJob(cluster, outcome.status, outcome.message, checkJobName);
    await run();
  };
  const CHECK_PASSED = { status: { succeeded: 1 }, message: "It can run." };

  it("runs the data's major until the Job converted it, with every instance stopped meanwhile", async () => {
    const { cluster, run, stored, updateSpec, addPod } = setup({ version: "15", instances: 2 });
    await run();
    expect(stored().status?.version).toBe("15");
    const before = postgresOf(cluster.find("StatefulSet", NS, NAME));
    expect(before).toMatchObject({ replicas: 2, major: "15" });

    updateSpec({ version: "17", image: before.image.replace(":15", ":17") });
    addPod(0, true);
    addPod(1, true);
    await run();
    // The first pass after the rise: still 15 (a pod recreated now starts the old major), and
    // the checks recorded; nothing stops before they passed.
    expect(postgresOf(cluster.find("StatefulSet", NS, NAME))).toEqual(before);
    expect(stored().status?.upgrade).toMatchObject({
      from: "15",
      to: "17",
      phase: "Checking",
      fromImage: before.image,
    });
    await checked(cluster, run, CHECK_PASSED);
    expect(postgresOf(cluster.find("StatefulSet", NS, NAME))).toEqual(before);
    expect(stored().status?.upgrade?.phase).toBe("Stopping");
    await run();
    expect(postgresOf(cluster.find("StatefulSet", NS, NAME))).toEqual({ ...before, replicas: 0 });
    expect(upgradeJob(cluster)).toBeUndefined(); // the pods are still there

    removePods(cluster);
    await run();
    expect(stored().status?.upgrade?.phase).toBe("Upgrading");
    const job = upgradeJob(cluster)!;
    const pod = (
      job.spec as {
        template: {
          spec: { initContainers: { image: string }[]; containers: { image: string }[] };
        };
      }
    ).template.spec;
    expect(pod.initContainers[0].image).toBe(before.image);
    expect(pod.containers[0].image).toBe(before.image.replace(":15", ":17"));
    expect(stored().status?.phase).toBe("Upgrading");

    endJob(cluster, { succeeded: 1 }, "Upgraded from PostgreSQL 15 to 17.");
    await run();
    expect(stored().status).toMatchObject({ version: "17", upgrade: { phase: "Starting" } });
    await run();
    expect(postgresOf(cluster.find("StatefulSet", NS, NAME))).toMatchObject({
      replicas: 2,
      major: "17",
    });
  });

  it("brings the old major back when the Job failed, saying why", async () => {
    const { cluster, run, stored, updateSpec, addPod } = setup({ version: "15" });
    await run();
    const before = postgresOf(cluster.find("StatefulSet", NS, NAME));
    updateSpec({ version: "17", image: before.image.replace(":15", ":17") });
    addPod(0, true);
    await run();
    await checked(cluster, run, CHECK_PASSED);
    await run();
    removePods(cluster);
    await run();
    endJob(
      cluster,
      { failed: 2, conditions: [{ type: "Failed", status: "True" }] },
      "pg_upgrade failed: adminpack",
    );
    await run();
    expect(stored().status?.upgrade).toMatchObject({
      phase: "Failed",
      message: "pg_upgrade failed: adminpack",
    });
    expect(stored().status?.version).toBe("15");
    expect(stored().status?.conditions?.find(c => c.type === "MajorUpgrade")).toMatchObject({
      status: "False",
      reason: "Failed",
    });
    await run();
    expect(postgresOf(cluster.find("StatefulSet", NS, NAME))).toEqual(before);
  });

  it("stops nothing when the checks refuse the upgrade, and says why and what to do", async () => {
    const { cluster, run, stored, updateSpec, addPod } = setup({ version: "15", instances: 2 });
    await run();
    const before = postgresOf(cluster.find("StatefulSet", NS, NAME));
    updateSpec({ version: "17", image: before.image.replace(":15", ":17") });
    addPod(0, true);
    addPod(1, true);
    await run();
    await checked(cluster, run, {
      status: { failed: 1, conditions: [{ type: "Failed", status: "True" }] },
      message: "Extensions installed here are not in PostgreSQL 17's image: adminpack.",
    });
    expect(stored().status?.upgrade).toMatchObject({
      phase: "Failed",
      message: expect.stringContaining("nothing was stopped"),
    });
    expect(stored().status?.upgrade?.message).toContain("adminpack");
    expect(stored().status?.upgrade?.stoppedAt).toBeUndefined();
    await run();
    expect(postgresOf(cluster.find("StatefulSet", NS, NAME))).toEqual(before);
    expect(upgradeJob(cluster)).toBeUndefined();
  });
});

describe("reconcile: a rolling restart asked for with pgkeeper.dev/restart", () => {
  const templateAnnotations = (cluster: FakeCluster): Record<string, string> =>
    (
      cluster.find("StatefulSet", NS, NAME)!.spec as {
        template: { metadata: { annotations: Record<string, string> } };
      }
    ).template.metadata.annotations;

  it("records the request, rolls every pod through the template, removes the annotation when all are back", async () => {
    const { cluster, run, stored, addPod } = setup({ instances: 2 });
    addPod(0, true);
    addPod(1, true);
    await run();
    expect(templateAnnotations(cluster)[ANNOTATION_RESTARTED_AT]).toBeUndefined();

    stored().metadata!.annotations = { [ANNOTATION_RESTART]: "2026-11-29T10:00" };
    await run();
    const requestedAt = stored().status?.restart?.requestedAt;
    expect(stored().status?.restart).toMatchObject({
      request: "2026-11-29T10:00",
      phase: "Restarting",
    });
    await run();
    expect(templateAnnotations(cluster)[ANNOTATION_RESTARTED_AT]).toBe(requestedAt);
    expect(stored().metadata?.annotations?.[ANNOTATION_RESTART]).toBe("2026-11-29T10:00");

    // High availability's part, done by hand here: each pod recreated from the new template.
    for (const ordinal of [0, 1]) {
      addPod(ordinal, true);
      const pod = cluster.find("Pod", NS, `${NAME}-${ordinal}`)!;
      pod.metadata!.annotations = { [ANNOTATION_RESTARTED_AT]: requestedAt! };
      await run();
      expect(stored().status?.restart?.phase).toBe(ordinal === 0 ? "Restarting" : "Done");
    }
    expect(stored().metadata?.annotations?.[ANNOTATION_RESTART]).toBeUndefined();
    // The template keeps the time: removing the annotation rolls nothing again.
    await run();
    expect(templateAnnotations(cluster)[ANNOTATION_RESTARTED_AT]).toBe(requestedAt);
  });
});

describe("reconcile: Ready means a client reaches the primary through -rw", () => {
  it("stays not Ready while the -rw Service's endpoints lag behind the primary's label", async () => {
    const { cluster, run, stored, addPod } = setup({ instances: 1 });
    addPod(0, true);
    cluster.endpointsBehind = true;
    await run();
    await run();
    expect(stored().status?.phase).toBe("Creating");
    expect(stored().status?.conditions?.find(c => c.type === "Ready")).toMatchObject({
      status: "False",
      reason: "ServiceNotRouting",
    });
    cluster.endpointsBehind = false;
    await run();
    expect(stored().status?.phase).toBe("Ready");
  });
});
