/**
 * Reconcile through the real apiserver and controller-manager: children, garbage collection,
 * idempotency (proved by the audit log), drift repair, failures with backoff, and crashes.
 */
import { operatorWrites, describeEvent, auditEvents } from "./harness/audit";
import { database, operatorSuite } from "./harness/fixtures";
import { Obj, create, del, get, kubectl, kubectlOk, list } from "./harness/kubectl";
import { Operator } from "./harness/operator";
import { sleep, waitFor } from "./harness/wait";

const CHILDREN: [string, string][] = [
  ["secret", "-superuser"],
  ["secret", "-app"],
  ["configmap", "-config"],
  ["service", "-rw"],
  ["service", "-ro"],
  ["service", "-hl"],
  ["statefulset", ""],
  // Every Database created through the webhook gets one (ADR 0018).
  ["networkpolicy", ""],
];

const operator = new Operator("reconcile");
let ns: string;

operatorSuite(operator, "rec", created => (ns = created));

type Status = {
  phase?: string;
  observedGeneration?: number;
  conditions?: { type: string; status: string; reason: string }[];
  retry?: { attempts: number };
};
const statusOf = (name: string): Status => (get("database", ns, name)?.status ?? {}) as Status;
const condition = (name: string, type: string) =>
  statusOf(name).conditions?.find(c => c.type === type);

async function converged(name: string, timeoutMs = 60_000): Promise<Obj> {
  return waitFor(
    `${name} to be reconciled`,
    () => {
      const db = get("database", ns, name);
      const reconciled = (db?.status as Status | undefined)?.conditions?.find(
        c => c.type === "Reconciled",
      );
      return db &&
        (db.status as Status).observedGeneration === db.metadata.generation &&
        reconciled?.status === "True"
        ? db
        : undefined;
    },
    { timeoutMs },
  );
}

/** A JSON merge patch of a Database's spec (null removes a field). */
const patchSpec = (name: string, spec: Record<string, unknown>): string =>
  kubectlOk([
    "patch",
    "database",
    name,
    "-n",
    ns,
    "--type",
    "merge",
    "-p",
    JSON.stringify({ spec }),
  ]);

const childrenOf = (name: string): Obj[] =>
  CHILDREN.map(([kind, suffix]) => get(kind, ns, `${name}${suffix}`)).filter(
    (o): o is Obj => o !== undefined,
  );

const versions = (objs: Obj[]) =>
  Object.fromEntries(objs.map(o => [`${o.kind}/${o.metadata.name}`, o.metadata.resourceVersion]));

const warnings = (name: string): string[] =>
  (
    JSON.parse(
      kubectlOk([
        "get",
        "events",
        "-n",
        ns,
        "--field-selector",
        `involvedObject.name=${name},type=Warning`,
        "-o",
        "json",
      ]),
    ) as { items: { reason: string }[] }
  ).items.map(e => e.reason);

describe("children", () => {
  it("creates every child with an owner reference and labels, and reports status", async () => {
    create(database(ns, "alpha"));
    const db = await converged("alpha");
    const children = childrenOf("alpha");
    expect(children.map(c => `${c.kind}/${c.metadata.name}`)).toHaveLength(CHILDREN.length);
    for (const child of children) {
      expect(child.metadata.ownerReferences).toEqual([
        expect.objectContaining({ uid: db.metadata.uid, kind: "Database", controller: true }),
      ]);
      expect(child.metadata.labels?.["pgkeeper.dev/database"]).toBe("alpha");
    }
    expect(statusOf("alpha")).toMatchObject({ phase: "Creating", observedGeneration: 1 });
    expect(get("service", ns, "alpha-rw")?.spec).toMatchObject({
      selector: expect.objectContaining({ "pgkeeper.dev/role": "primary" }),
    });
    expect(kubectlOk(["get", "pgdb", "-n", ns])).toMatch(
      /NAME\s+PHASE\s+INSTANCES\s+READY\s+PRIMARY\s+AGE/,
    );
  }, 90_000);

  it("makes zero writes and no GET or LIST once converged, however often it reconciles", async () => {
    const before = versions(childrenOf("alpha"));
    const dbVersion = get("database", ns, "alpha")?.metadata.resourceVersion;
    const since = new Date();
    const reconciles = () => operator.metric("pgkeeper_reconcile_duration_seconds_count");
    const reconcilesBefore = await reconciles();
    // Force reconciles: three watch events on the Database, each awaited, then two resync
    // periods (10 s each), in which every known Database is reconciled again.
    for (let i = 0; i < 3; i++) {
      const seen = await reconciles();
      kubectlOk([
        "annotate",
        "database",
        "alpha",
        "-n",
        ns,
        `test.pgkeeper.dev/poke=${i}`,
        "--overwrite",
      ]);
      await waitFor(`a reconcile after poke ${i}`, async () => (await reconciles()) > seen);
    }
    const resyncsFrom = Date.now();
    await waitFor(
      "two resync periods, with reconciles in them",
      async () => Date.now() - resyncsFrom > 21_000 && (await reconciles()) >= reconcilesBefore + 5,
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    expect((await reconciles()) - reconcilesBefore).toBeGreaterThanOrEqual(5); // it did reconcile…
    expect(operatorWrites(since, ns).map(describeEvent)).toEqual([]); // …wrote nothing…
    const reads = auditEvents(since).filter(
      e => e.objectRef?.namespace === ns && (e.verb === "get" || e.verb === "list"),
    );
    expect(reads.map(describeEvent)).toEqual([]); // …and read it all from its watch-fed cache
    expect(versions(childrenOf("alpha"))).toEqual(before);
    expect(Number(get("database", ns, "alpha")?.metadata.resourceVersion)).toBeGreaterThan(
      Number(dbVersion),
    ); // only our annotations
  }, 150_000);

  it("keeps a NetworkPolicy while spec.networkPolicy is on, and deletes it once it is off", async () => {
    create(database(ns, "fenced"));
    await converged("fenced");
    const spec = get("database", ns, "fenced")?.spec as { networkPolicy?: object };
    expect(spec.networkPolicy).toEqual({ enabled: true, clients: [{ podSelector: {} }] });
    const policy = get("networkpolicy", ns, "fenced");
    expect(policy?.spec).toMatchObject({
      podSelector: { matchLabels: { "pgkeeper.dev/database": "fenced" } },
      policyTypes: ["Ingress"],
    });
    patchSpec("fenced", { networkPolicy: { enabled: false } });
    await waitFor("the NetworkPolicy to be deleted", () => !get("networkpolicy", ns, "fenced"), {
      timeoutMs: 60_000,
    });
    await converged("fenced");
  }, 120_000);

  it("deletes the backup TLS Secret once the object store is gone from the spec", async () => {
    const objectStore = {
      endpoint: "s3.example",
      bucket: "pgbackups",
      credentials: { secretName: "s3" },
    };
    create(database(ns, "unstored", { backup: { objectStore } }));
    await waitFor("the backup TLS Secret", () => get("secret", ns, "unstored-backup-tls"), {
      timeoutMs: 60_000,
    });
    patchSpec("unstored", { backup: null });
    await waitFor(
      "the backup TLS Secret to be deleted",
      () => !get("secret", ns, "unstored-backup-tls"),
      { timeoutMs: 60_000 },
    );
  }, 120_000);

  it("deletes the backup CronJob an earlier version made, once it sees it", async () => {
    create(database(ns, "legacy-cron"));
    const db = await converged("legacy-cron");
    create({
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: {
        name: "legacy-cron-backup",
        namespace: ns,
        labels: {
          "pgkeeper.dev/database": "legacy-cron",
          "app.kubernetes.io/managed-by": "pgkeeper",
        },
        ownerReferences: [
          {
            apiVersion: "pgkeeper.dev/v1alpha1",
            kind: "Database",
            name: "legacy-cron",
            uid: db.metadata.uid,
            controller: true,
          },
        ],
      },
      spec: {
        schedule: "0 3 * * *",
        jobTemplate: {
          spec: {
            template: {
              spec: {
                restartPolicy: "Never",
                containers: [{ name: "backup", image: "busybox:1", command: ["true"] }],
              },
            },
          },
        },
      },
    });
    // A reconcile to see it: any change to the Database wakes one.
    kubectlOk(["annotate", "database", "legacy-cron", "-n", ns, "test.pgkeeper.dev/poke=1"]);
    await waitFor(
      "the earlier version's CronJob to be deleted",
      () => !get("cronjob", ns, "legacy-cron-backup"),
      { timeoutMs: 60_000 },
    );
  }, 120_000);

  it("deleting the Database deletes its children (garbage collection)", async () => {
    create(database(ns, "doomed"));
    await converged("doomed");
    expect(childrenOf("doomed")).toHaveLength(CHILDREN.length);
    kubectlOk(["delete", "database", "doomed", "-n", ns, "--wait=false"]);
    await waitFor("the Database to be gone", () => get("database", ns, "doomed") === undefined, {
      timeoutMs: 30_000,
    });
    await waitFor("its children to be collected", () => childrenOf("doomed").length === 0, {
      timeoutMs: 60_000,
    });
  }, 120_000);
});

describe("data volumes", () => {
  /** The instances' data claims (the StatefulSet controller makes them with the pods). */
  const dataClaims = (name: string): Obj[] =>
    list("pvc", ns, `pgkeeper.dev/database=${name}`).filter(c =>
      new RegExp(`^pgdata-${name}-\\d+$`).test(c.metadata.name),
    );
  const ownedBy = (claim: Obj, uid: string): boolean =>
    (claim.metadata.ownerReferences ?? []).some(r => r.uid === uid);

  it("belong to the Database: kept when the StatefulSet is deleted, which comes back over them; deleted with the Database", async () => {
    create(database(ns, "kept", { instances: 2 }));
    const db = await converged("kept");
    const claims = await waitFor(
      "both data claims owned by the Database",
      () => {
        const found = dataClaims("kept");
        return found.length === 2 && found.every(c => ownedBy(c, db.metadata.uid!))
          ? found
          : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const uids = claims.map(c => c.metadata.uid).sort();
    const sts = get("statefulset", ns, "kept")!;
    expect(sts.spec).toMatchObject({
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    });
    // `kubectl delete sts`: a background cascade. Garbage collection takes the pods, never the
    // claims (the Database still owns them), and the operator recreates the StatefulSet.
    kubectlOk(["delete", "statefulset", "kept", "-n", ns, "--wait=true"]);
    const recreated = await waitFor(
      "the StatefulSet recreated",
      () => {
        const uid = get("statefulset", ns, "kept")?.metadata.uid;
        return uid !== undefined && uid !== sts.metadata.uid ? uid : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // The collector deletes the old StatefulSet's dependents together; once its pods are
    // replaced by the new one's, it has been through the claims too.
    await waitFor(
      "the old pods collected, the new StatefulSet's made",
      () => {
        const pods = list("pod", ns, "pgkeeper.dev/database=kept");
        return (
          pods.length === 2 &&
          pods.every(p => (p.metadata.ownerReferences ?? []).some(r => r.uid === recreated))
        );
      },
      { timeoutMs: 60_000 },
    );
    expect(
      dataClaims("kept")
        .filter(c => !c.metadata.deletionTimestamp)
        .map(c => c.metadata.uid)
        .sort(),
    ).toEqual(uids);
    kubectlOk(["delete", "database", "kept", "-n", ns, "--wait=false"]);
    await waitFor(
      "the data claims collected with the Database",
      () => dataClaims("kept").length === 0,
      {
        timeoutMs: 60_000,
      },
    );
  }, 240_000);
});

describe("Backups", () => {
  it("a Backup of a Database that does not exist waits, saying so, and runs nothing", async () => {
    create({
      apiVersion: "pgkeeper.dev/v1alpha1",
      kind: "Backup",
      metadata: { name: "orphan", namespace: ns },
      spec: { database: "nowhere" },
    });
    const status = await waitFor(
      "the Backup's status",
      () => get("backup", ns, "orphan")?.status as { phase: string; message: string } | undefined,
      { timeoutMs: 30_000 },
    );
    expect(status).toEqual({
      phase: "Pending",
      message: `waits for Database nowhere, which does not exist in namespace ${ns}`,
    });
    expect(list("job", ns, "pgkeeper.dev/database=nowhere")).toEqual([]);
  }, 60_000);
});

describe("drift", () => {
  it.each([
    [
      "a Service deleted by hand",
      (n: string) => del("service", ns, `${n}-rw`),
      (n: string) => get("service", ns, `${n}-rw`) !== undefined,
    ],
    [
      "a ConfigMap edited by hand",
      (n: string) =>
        kubectl([
          "patch",
          "configmap",
          `${n}-config`,
          "-n",
          ns,
          "--type",
          "merge",
          "-p",
          '{"data":{"postgresql.conf":"# gone"}}',
        ]),
      (n: string) =>
        !String(get("configmap", ns, `${n}-config`)?.data?.["postgresql.conf"]).startsWith(
          "# gone",
        ),
    ],
    [
      "a StatefulSet scaled by hand",
      (n: string) => kubectl(["scale", "statefulset", n, "-n", ns, "--replicas=4"]),
      (n: string) => (get("statefulset", ns, n)?.spec as { replicas: number }).replicas === 1,
    ],
  ])(
    "repairs %s within the resync period",
    async (_name, breakIt, repaired) => {
      const name = `drift-${_name.split(" ")[1].toLowerCase()}`;
      create(database(ns, name));
      await converged(name);
      const r = breakIt(name);
      expect(r.code).toBe(0);
      const started = Date.now();
      await waitFor("the repair", () => repaired(name), { timeoutMs: 30_000 });
      expect(Date.now() - started).toBeLessThan(10_000 + 5_000); // resync period + slack
    },
    90_000,
  );
});

describe("labels removed by hand", () => {
  // The informers see only labelled objects: such a child leaves the cache, the create that
  // follows fails on its name (ADR 0033), and the object is read, found ours, and its labels
  // put back (nothing else: the pass fails with LabelsRestored, the next builds from it).
  it("each kind of child is found by the failed create and repaired in place", async () => {
    const name = "unlabelled";
    create(database(ns, name, { instances: 2 }));
    await converged(name);
    const children: [string, string][] = [
      ["service", `${name}-rw`],
      ["serviceaccount", `${name}-postgres`],
      ["poddisruptionbudget", `${name}-primary`],
      ["networkpolicy", name],
      ["configmap", `${name}-topology`],
    ];
    const uids = children.map(([kind, child]) => get(kind, ns, child)?.metadata.uid);
    for (const [kind, child] of children)
      kubectlOk([
        "label",
        kind,
        child,
        "-n",
        ns,
        "app.kubernetes.io/managed-by-",
        "pgkeeper.dev/database-",
      ]);
    for (const [i, [kind, child]] of children.entries()) {
      const repaired = await waitFor(
        `${kind} ${child} relabelled`,
        () => {
          const obj = get(kind, ns, child);
          return obj?.metadata.labels?.["pgkeeper.dev/database"] === name ? obj : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(repaired.metadata.uid).toBe(uids[i]);
      expect(repaired.metadata.labels?.["app.kubernetes.io/managed-by"]).toBe("pgkeeper");
    }
    await converged(name);
  }, 120_000);
});

describe("failure", () => {
  it("reports an object it does not own, backs off, and recovers once it is removed", async () => {
    kubectlOk([
      "create",
      "configmap",
      "squat-config",
      "-n",
      ns,
      "--from-literal=owner=someone-else",
    ]);
    create(database(ns, "squat"));
    await waitFor(
      "the conflict in status",
      () => condition("squat", "Reconciled")?.reason === "OwnershipConflict",
    );
    expect(statusOf("squat").retry?.attempts).toBeGreaterThanOrEqual(1);
    await waitFor("a Warning Event", () => warnings("squat").includes("OwnershipConflict"));

    // Backoff, not a hot loop: in 20 s, with delays 1, 2, 4, 8, 8 s, at most a handful of tries.
    const since = new Date();
    const attemptsBefore = statusOf("squat").retry?.attempts ?? 0;
    await sleep(20_000);
    const tries = (statusOf("squat").retry?.attempts ?? 0) - attemptsBefore;
    expect(tries).toBeGreaterThanOrEqual(1);
    expect(tries).toBeLessThanOrEqual(6);
    const requests = auditEvents(since).filter(
      e => e.objectRef?.namespace === ns && e.objectRef?.name?.startsWith("squat"),
    );
    expect(requests.length).toBeLessThan(80); // ~12 requests per try
    expect(get("configmap", ns, "squat-config")?.data).toEqual({ owner: "someone-else" }); // untouched
    expect(warnings("squat").filter(r => r === "OwnershipConflict")).toHaveLength(1); // not one per retry

    del("configmap", ns, "squat-config");
    await converged("squat", 30_000);
    expect(statusOf("squat").retry).toBeUndefined();
    expect(get("configmap", ns, "squat-config")?.metadata.ownerReferences?.[0]?.name).toBe("squat");
  }, 120_000);
});

describe("crashes", () => {
  it("converges with no duplicates or orphans after a kill -9 mid-reconcile", async () => {
    create(
      database(ns, "crash", {
        instances: 3,
        backup: {
          objectStore: {
            endpoint: "s3.example",
            bucket: "pgbackups",
            credentials: { secretName: "s3" },
          },
          schedule: "@daily",
        },
      }),
    );
    // Kill as soon as the first child exists: the reconcile is in the middle of its steps.
    await waitFor("the first child", () => get("secret", ns, "crash-superuser"), {
      intervalMs: 50,
    });
    await operator.stop("SIGKILL");
    const firstPassword = get("secret", ns, "crash-superuser")?.data?.password;
    await operator.start();
    const db = await converged("crash", 90_000);
    // Every object labelled for this Database is owned by it, the data claims too (adopted once
    // the StatefulSet controller made them): nothing is orphaned.
    const ownerOf = (o: Obj) =>
      (o.metadata.ownerReferences ?? []).some(r => r.uid === db.metadata.uid) ? "db" : "orphan";
    const kinds = [
      "secret",
      "configmap",
      "service",
      "statefulset",
      "poddisruptionbudget",
      "networkpolicy",
      "serviceaccount",
      "persistentvolumeclaim",
    ];
    const owned = await waitFor("the data claims owned by the Database", () => {
      const all = kinds.flatMap(kind =>
        list(kind, ns, "pgkeeper.dev/database=crash").map(
          o => `${kind}/${o.metadata.name}:${ownerOf(o)}`,
        ),
      );
      const claims = all.filter(o => o.startsWith("persistentvolumeclaim/pgdata-"));
      return claims.length === 3 && claims.every(o => o.endsWith(":db")) ? all : undefined;
    });
    expect(owned.filter(o => !o.startsWith("persistentvolumeclaim/pgdata-")).sort()).toEqual(
      [
        "configmap/crash-config:db",
        "configmap/crash-topology:db",
        "networkpolicy/crash:db",
        "poddisruptionbudget/crash-primary:db",
        "poddisruptionbudget/crash-replicas:db",
        "secret/crash-app:db",
        "secret/crash-backup-tls:db",
        "secret/crash-ca:db",
        "secret/crash-superuser:db",
        "secret/crash-tls:db",
        "service/crash-hl:db",
        "service/crash-ro:db",
        "service/crash-rw:db",
        "serviceaccount/crash-postgres:db",
        "statefulset/crash:db",
      ].sort(),
    );
    expect(get("secret", ns, "crash-superuser")?.data?.password).toBe(firstPassword); // never regenerated
  }, 300_000);

  it("deletes Databases with the operator down; one from an earlier version loses its finalizer once it is back", async () => {
    // pgkeeper keeps no finalizer (ADR 0005); a Database made by an earlier version carries Pepr's.
    const legacy = database(ns, "legacy") as { metadata: Record<string, unknown> };
    legacy.metadata.finalizers = ["pepr.dev/finalizer"];
    create(database(ns, "current"));
    create(legacy);
    await converged("current");
    await converged("legacy");
    await operator.stop("SIGKILL");
    // The webhooks stay registered (failurePolicy Fail), as after a crash: a DELETE needs none.
    kubectlOk(["delete", "database", "current", "legacy", "-n", ns, "--wait=false"]);
    await waitFor(
      "the current Database to be gone",
      () => get("database", ns, "current") === undefined,
    );
    const stuck = get("database", ns, "legacy");
    expect(stuck?.metadata.deletionTimestamp).toBeDefined();
    expect(stuck?.metadata.finalizers).toEqual(["pepr.dev/finalizer"]);
    await operator.start();
    await waitFor(
      "the legacy Database to be gone",
      () => get("database", ns, "legacy") === undefined,
      {
        timeoutMs: 60_000,
      },
    );
    await waitFor(
      "the children of both to be collected",
      () => childrenOf("current").length + childrenOf("legacy").length === 0,
      { timeoutMs: 60_000 },
    );
  }, 300_000);
});
