/**
 * A real Database on a real node: PostgreSQL in a pod, reached through its Service from the host,
 * surviving the loss of its pod on the same volume. The operator is a namespaced Helm install
 * (ADR 0031): it holds Roles in this suite's namespaces only, and no cluster-wide write but
 * Pepr's own CRD patch, so every step below also proves it needs nothing more.
 */
import { database, freshNamespace, installCrd } from "../integration/harness/fixtures";
import { create, get, kubectl, kubectlOk, mergePatch } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";
import { NamespacedInstall, clusterWrites, operatorGrants } from "./namespaced-install";
import { kubeletProbeCounts, runsOf } from "./kubelet-probes";
import { appCredentials, psql } from "./psql";
import { createPullSecret, privatePostgresImage } from "./registry";

let ns: string;
/** Where the namespace-deletion tests put their Databases: served from the start. */
const doomed: Record<string, string> = {};
let operator: NamespacedInstall;

beforeAll(async () => {
  await installCrd();
  ns = freshNamespace("e2e");
  doomed.running = freshNamespace("e2e-doomed");
  doomed.down = freshNamespace("e2e-doomed");
  operator = new NamespacedInstall([ns, doomed.running, doomed.down]);
  await operator.install();
}, 900_000);

afterAll(() => {
  for (const namespace of [ns, ...Object.values(doomed)])
    if (namespace)
      kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  operator?.remove();
}, 300_000);

describe("a namespaced install", () => {
  it("holds no cluster-wide write but Pepr's own CRD patch, and a Role in each namespace it serves", () => {
    const grants = operatorGrants();
    expect(clusterWrites(grants.cluster)).toEqual([
      "patch customresourcedefinitions [peprstores.pepr.dev]",
    ]);
    for (const served of operator.namespaces) {
      const rules = grants.byNamespace.get(served) ?? [];
      expect(
        rules.some(r => r.resources?.includes("statefulsets") && r.verbs.includes("create")),
      ).toBe(true);
    }
    expect([...grants.byNamespace.keys()].sort()).toEqual(
      [...operator.namespaces, "pepr-system"].sort(),
    );
  });

  it("refuses a Database in a namespace it does not serve, naming those it serves", () => {
    const elsewhere = freshNamespace("e2e-unserved");
    try {
      const r = kubectl(["create", "-f", "-"], JSON.stringify(database(elsewhere, "stray")));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`"${elsewhere}" is not served by this pgkeeper install`);
      expect(r.stderr).toContain(operator.namespaces.join(", "));
    } finally {
      kubectl(["delete", "namespace", elsewhere, "--wait=false"]);
    }
  });
});

type Status = { phase?: string; readyInstances?: number };
const phase = (name: string): string | undefined =>
  (get("database", ns, name)?.status as Status | undefined)?.phase;

describe("a single-instance Database", () => {
  it("lives in a namespace that enforces the restricted Pod Security Standard: a pod breaking it is refused there", () => {
    // Every test namespace is labelled so (freshNamespace): this shows the label is enforced, so
    // each Database the e2e tier runs proves its pods meet the standard.
    const privileged = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "privileged", namespace: ns },
      spec: {
        containers: [
          { name: "c", image: "localhost/none:1", securityContext: { privileged: true } },
        ],
      },
    };
    const r = kubectl(["create", "-f", "-"], JSON.stringify(privileged));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('violates PodSecurity "restricted:latest"');
  });

  it("becomes Ready and serves SQL through the -rw Service with the app Secret", async () => {
    create(database(ns, "shop"));
    await waitFor("the Database to be Ready", () => phase("shop") === "Ready", {
      timeoutMs: 240_000,
      intervalMs: 2000,
    });
    const creds = appCredentials(ns, "shop");
    await waitFor("SQL through the Service", () => psql(creds, "select 1") === "1", {
      timeoutMs: 60_000,
      intervalMs: 2000,
    });
    // Its own ServiceAccount, and no API token in the pod (the apiserver would have added a
    // kube-api-access volume for one).
    const pod = get("pod", ns, "shop-0")?.spec as {
      serviceAccountName?: string;
      volumes?: { name: string }[];
    };
    expect(pod.serviceAccountName).toBe("shop-postgres");
    expect(pod.volumes?.map(v => v.name).filter(n => n.startsWith("kube-api-access"))).toEqual([]);
    psql(creds, "create table orders (id int primary key, item text)");
    psql(creds, "insert into orders select g, 'item-' || g from generate_series(1, 1000) g");
    expect(psql(creds, "select count(*) from orders")).toBe("1000");
  }, 360_000);

  it("runs no probe in its pod once started: one startup success, then TCP liveness alone (ADR 0039)", async () => {
    const counts = () => kubeletProbeCounts(ns, "shop-0", "postgres");
    const started = counts();
    expect(started["Startup/successful"]).toBe(1);
    // Two more liveness connects: the kubelet has been probing this container meanwhile.
    const later = await waitFor(
      "two more liveness probes of shop-0",
      () => {
        const now = counts();
        return runsOf(now, "Liveness") >= runsOf(started, "Liveness") + 2 ? now : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    expect(runsOf(later, "Startup")).toBe(runsOf(started, "Startup"));
    expect(runsOf(later, "Readiness")).toBe(0);
  }, 120_000);

  it("survives pod deletion: same volume, rows intact, Degraded then Ready", async () => {
    const podUid = get("pod", ns, "shop-0")?.metadata.uid;
    kubectlOk(["delete", "pod", "shop-0", "-n", ns, "--wait=false"]);
    await waitFor("the Database to report Degraded", () => phase("shop") === "Degraded", {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await waitFor(
      "a new pod",
      () => {
        const uid = get("pod", ns, "shop-0")?.metadata.uid;
        return uid !== undefined && uid !== podUid;
      },
      { timeoutMs: 120_000 },
    );
    await waitFor("the Database to be Ready again", () => phase("shop") === "Ready", {
      timeoutMs: 240_000,
      intervalMs: 2000,
    });
    const creds = appCredentials(ns, "shop");
    await waitFor("SQL again", () => psql(creds, "select count(*) from orders") === "1000", {
      timeoutMs: 60_000,
      intervalMs: 2000,
    });
  }, 480_000);

  it("gets a deleted app Secret back with the password PostgreSQL has", async () => {
    const before = appCredentials(ns, "shop");
    kubectlOk(["delete", "secret", "shop-app", "-n", ns]);
    const after = await waitFor(
      "the app Secret back",
      () => {
        try {
          return appCredentials(ns, "shop");
        } catch {
          return undefined; // not there yet
        }
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(after.password).toBe(before.password);
    expect(psql(after, "select count(*) from orders")).toBe("1000");
    expect(phase("shop")).toBe("Ready");
  }, 120_000);

  it("rotates the app password edited in its Secret: the new one logs in, the old one no longer does", async () => {
    const before = appCredentials(ns, "shop");
    const pod = () => get("pod", ns, "shop-0");
    const restarts = () =>
      (pod()?.status?.containerStatuses as { restartCount: number }[] | undefined)?.map(
        c => c.restartCount,
      );
    const podBefore = { uid: pod()?.metadata.uid, restarts: restarts() };
    const rotated = "rotated-by-hand-" + Date.now();
    kubectlOk(
      [
        ["patch", "secret", "shop-app", "-n", ns, "--type=merge", "-p"],
        [JSON.stringify({ stringData: { password: rotated } })],
      ].flat(),
    );
    await waitFor(
      "the new password to log in",
      () => {
        try {
          return psql({ ...before, password: rotated }, "select count(*) from orders") === "1000";
        } catch {
          return false; // not rotated yet
        }
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(() => psql(before, "select 1")).toThrow(/password authentication failed/);
    // The Secret keeps the edit, its other keys follow it, and nothing restarted.
    await waitFor(
      "the Secret's uri to follow",
      () =>
        appCredentials(ns, "shop").password === rotated &&
        decodeKey("shop-app", "uri").includes(encodeURIComponent(rotated)),
    );
    expect({ uid: pod()?.metadata.uid, restarts: restarts() }).toEqual(podBefore);
    expect(phase("shop")).toBe("Ready");
  }, 120_000);
});

describe("a Database whose image cannot be pulled", () => {
  it("names the pod, the image and the registry's refusal in Ready, deletes nothing, and heals once spec.imagePullSecrets names the registry's credentials", async () => {
    // The registry serves private/ to authenticated clients only.
    const image = privatePostgresImage();
    create(database(ns, "pull", { image }));
    const ready = () =>
      (
        get("database", ns, "pull")?.status as
          | { conditions?: { type: string; reason?: string; message?: string }[] }
          | undefined
      )?.conditions?.find(c => c.type === "Ready");
    await waitFor(
      "Ready=False naming the image",
      () => ["ErrImagePull", "ImagePullBackOff"].includes(ready()?.reason ?? ""),
      { timeoutMs: 180_000, intervalMs: 2000 },
    );
    expect(ready()?.message).toContain(`pull-0 cannot pull ${image}`);
    expect(ready()?.message).toMatch(/401|[Uu]nauthorized/);
    // Nothing deleted while it waits: the claim holds, the pod is the kubelet's to retry.
    const claim = get("persistentvolumeclaim", ns, "pgdata-pull-0");
    expect(claim?.metadata.deletionTimestamp).toBeUndefined();

    createPullSecret(ns, "regcred");
    mergePatch("database", ns, "pull", { spec: { imagePullSecrets: [{ name: "regcred" }] } });
    await waitFor("Ready once the pull Secret is named", () => phase("pull") === "Ready", {
      timeoutMs: 300_000,
      intervalMs: 2000,
    });
    expect(get("persistentvolumeclaim", ns, "pgdata-pull-0")?.metadata.uid).toBe(
      claim?.metadata.uid,
    );
    expect(get("pod", ns, "pull-0")?.spec).toMatchObject({
      imagePullSecrets: [{ name: "regcred" }],
    });
  }, 600_000);
});

/**
 * Namespace deletion with running instances: nothing of pgkeeper's may hold it up, whether the
 * operator runs (it must not fail its own deletion steps on "namespace is being terminated") or
 * not (its watchers scaled to none: no finalizer waits for them, and no webhook is called on
 * DELETE). Pods shut down cleanly inside their grace period.
 */
describe("deleting a namespace that holds running Databases", () => {
  it.each(["running", "down"])(
    "finishes with the operator %s",
    async state => {
      const namespace = doomed[state];
      create(database(namespace, "one"));
      create(database(namespace, "two", { instances: 2 }));
      for (const name of ["one", "two"])
        await waitFor(
          `${namespace}/${name} Ready`,
          () => (get("database", namespace, name)?.status as Status | undefined)?.phase === "Ready",
          { timeoutMs: 300_000, intervalMs: 2000 },
        );
      if (state === "down") await operator.stopWatchers();
      try {
        const t0 = Date.now();
        kubectlOk(["delete", "namespace", namespace, "--wait=false"]);
        await waitFor(
          `namespace ${namespace} to be gone`,
          () => kubectl(["get", "namespace", namespace]).code !== 0,
          { timeoutMs: 180_000, intervalMs: 1000 },
        );
        console.log(
          `namespace with 2 running Databases deleted, operator ${state}: ${Date.now() - t0} ms`,
        );
      } finally {
        if (state === "down") await operator.startWatchers();
      }
    },
    600_000,
  );
});

const decodeKey = (secret: string, key: string): string =>
  Buffer.from(
    String((get("secret", ns, secret)?.data as Record<string, string>)[key]),
    "base64",
  ).toString();
